package platform

import (
	"errors"
	"fmt"
)

// ReadFileCapped reads the regular file at path, refusing a symbolic link
// (O_NOFOLLOW), anything but a regular file, and a file over max bytes
// (ErrTooLarge). The cap holds even for a file that grows while it is read.
func ReadFileCapped(path string, max int64) ([]byte, error) {
	if max < 0 {
		return nil, errors.New("read capped: negative cap")
	}
	fd, err := openNoFollow(path)
	if err != nil {
		return nil, explainOpenErr(path, err)
	}
	defer closeFD(fd)
	st, err := fstat(fd, path)
	if err != nil {
		return nil, err
	}
	if !st.isRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (mode %#o)", ErrUnsafeFile, path, st.mode)
	}
	if st.size > max {
		return nil, fmt.Errorf("%w: %s is %d bytes, over %d", ErrTooLarge, path, st.size, max)
	}
	return readCapped(fd, path, max, st.size)
}
