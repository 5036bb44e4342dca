package platform

import (
	"fmt"

	"golang.org/x/sys/unix"
)

func dirID(path string) (string, error) {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_INO|unix.STATX_BTIME, &st); err != nil {
		return "", err
	}
	id := fmt.Sprintf("%x:%x-%x", st.Dev_major, st.Dev_minor, st.Ino)
	if st.Mask&unix.STATX_BTIME != 0 {
		id += fmt.Sprintf("-%x.%x", st.Btime.Sec, st.Btime.Nsec)
	}
	return id, nil
}
