package platform

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// readArgv reads sysctl kern.procargs2: argc as a 32-bit integer, the
// executable path, NUL padding, then argc NUL-terminated arguments and the
// environment after them. The kernel answers EINVAL for a zombie or a
// process that is gone, EPERM for another user's.
func readArgv(pid int) ([]string, error) {
	raw, err := unix.SysctlRaw("kern.procargs2", pid)
	switch {
	case errors.Is(err, unix.ESRCH):
		return nil, fmt.Errorf("pid %d: %w", pid, ErrProcessGone)
	case err != nil:
		return nil, fmt.Errorf("sysctl kern.procargs2.%d: %w", pid, err)
	case len(raw) > MaxArgvSize+4:
		raw = raw[:MaxArgvSize+4]
	}
	if len(raw) < 4 {
		return nil, fmt.Errorf("sysctl kern.procargs2.%d: %d bytes, no argc", pid, len(raw))
	}
	argc := int(binary.LittleEndian.Uint32(raw[:4]))
	rest := raw[4:]
	// Skip the executable path and its padding.
	i := 0
	for i < len(rest) && rest[i] != 0 {
		i++
	}
	for i < len(rest) && rest[i] == 0 {
		i++
	}
	rest = rest[i:]
	argv := make([]string, 0, min(argc, 64))
	for len(argv) < argc {
		end := 0
		for end < len(rest) && rest[end] != 0 {
			end++
		}
		if end == len(rest) {
			return nil, fmt.Errorf("sysctl kern.procargs2.%d: %w (over %d bytes)", pid, ErrArgvTooLong, MaxArgvSize)
		}
		argv = append(argv, string(rest[:end]))
		rest = rest[end+1:]
	}
	return argv, nil
}
