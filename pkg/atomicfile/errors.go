package atomicfile

import "errors"

var (
	// ErrUnsafeFile reports a path that may not be trusted: a symbolic
	// link, not a regular file, or a file with more than one link.
	ErrUnsafeFile = errors.New("unsafe file")

	// ErrNotPrivate reports a directory that is a symbolic link, not a
	// directory, owned by another user, or writable by group or others.
	ErrNotPrivate = errors.New("directory is not private")

	// ErrTooLarge reports a file larger than the caller's cap.
	ErrTooLarge = errors.New("file too large")
)
