package fleetbus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockName is the ledger's lock file, in FleetInbox beside the three
// state directories (prune never looks at it).
const lockName = ".lock"

// lockWaiting, when set (tests), is called when the ledger's lock is
// held elsewhere, just before waiting for it.
var lockWaiting func()

// lock takes the ledger's lock, an flock the kernel drops when its
// process exits however it exits. The invariant it guards: an entry's
// state is read and changed in one step, whichever process does it. The
// daemon (keep) and the loop (take) are two processes: without it a new
// owner's daemon landing a reply again could read "not here" while the
// loop is between staging its copy and recording it, and both would
// publish the file, the second after its reader took the first.
func (l ledger) lock() (unlock func(), err error) {
	if err := l.ensure(); err != nil {
		return nil, err
	}
	path := filepath.Join(l.dir, lockName)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the fleet inbox ledger's lock %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("the fleet inbox ledger's lock %s: not a regular file", path)
	}
	err = flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		if lockWaiting != nil {
			lockWaiting()
		}
		err = flock(fd, unix.LOCK_EX)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("the fleet inbox ledger's lock %s: %w", path, err)
	}
	return func() { _ = f.Close() }, nil // closing the only descriptor drops the lock
}

func flock(fd, how int) error {
	for {
		if err := unix.Flock(fd, how); err != unix.EINTR {
			return err
		}
	}
}
