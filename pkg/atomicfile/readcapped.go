package atomicfile

import (
	"errors"
	"fmt"
)

// ReadCapped reads the regular file at path, refusing a symbolic link
// (O_NOFOLLOW), anything but a regular file, and a file over max bytes
// (ErrTooLarge). The cap holds even for a file that grows while it is read.
func ReadCapped(path string, max int64) ([]byte, error) {
	if max < 0 {
		return nil, errors.New("read capped: negative cap")
	}
	fd, err := OpenNoFollow(path)
	if err != nil {
		return nil, ExplainOpenErr(path, err)
	}
	defer CloseFD(fd)
	st, err := Fstat(fd, path)
	if err != nil {
		return nil, err
	}
	if !st.IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (mode %#o)", ErrUnsafeFile, path, st.Mode)
	}
	if st.Size > max {
		return nil, fmt.Errorf("%w: %s is %d bytes, over %d", ErrTooLarge, path, st.Size, max)
	}
	return ReadCappedFD(fd, path, max, st.Size)
}
