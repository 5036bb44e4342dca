package platform

import (
	"fmt"

	"golang.org/x/sys/unix"
)

func dirID(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x-%x", uint64(st.Dev), st.Ino), nil
}
