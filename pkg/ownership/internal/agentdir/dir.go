package agentdir

import (
	"errors"
	"fmt"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// EnsureDir creates the daemon's directory and the levels above it under
// the agent dir (sdk, sdk/daemons), each mode 0700, and refuses any level
// that is a symbolic link, owned by another user, or writable by group or
// others (platform.ErrNotPrivate). The agent dir itself is the operator's
// choice and is not judged; a missing one is created 0700.
func EnsureDir(p ownership.Paths) error {
	levels, err := p.Levels()
	if err != nil {
		return err
	}
	// Top down, so a swapped-in link at a higher level is refused before
	// anything is created through it.
	for _, dir := range levels {
		if err := CheckPrivate(dir); err != nil {
			return fmt.Errorf("daemon directory %s: %w", p.Dir, err)
		}
	}
	return nil
}

// CheckPrivate is atomicfile.CheckPrivateDir, its refusal marked as the
// model's ErrUnsafeDirectory so a verdict on it needs no platform.
func CheckPrivate(dir string) error {
	err := atomicfile.CheckPrivateDir(dir)
	if errors.Is(err, platform.ErrNotPrivate) && !errors.Is(err, ownership.ErrUnsafeDirectory) {
		return fmt.Errorf("%w (%w)", err, ownership.ErrUnsafeDirectory)
	}
	return err
}
