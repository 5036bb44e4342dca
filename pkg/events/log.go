package events

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sys/unix"
)

// Log appends events to one history file. Safe for concurrent use, and
// beside other processes appending to the same file.
type Log struct {
	path string
	log  logr.Logger
	now  func() time.Time

	mu      sync.Mutex
	failing bool // the last append failed and was logged
}

// Open returns the history at path (<agentDir>/sdk/reconciler/events.jsonl,
// reconcile.EventsPath). Nothing is opened until the first event; the
// directory must exist then. Failures to record are logged to log.
func Open(path string, log logr.Logger) *Log {
	return &Log{path: path, log: log, now: time.Now}
}

// Record appends an event now, for the reconciler (reconcile.EventRecorder).
// A failure is logged once, until an append succeeds again: the history is
// a report, and the loop does not stop for it.
func (l *Log) Record(name, eventType, reason, message string) {
	err := l.Append(Event{Time: l.now(), Name: name, Type: eventType, Reason: reason, Message: message})
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err != nil && !l.failing:
		l.log.Error(err, "recording an event; later failures are not logged until one succeeds", "name", name, "reason", reason)
		l.failing = true
	case err == nil && l.failing:
		l.log.Info("recording events again", "path", l.path)
		l.failing = false
	}
}

// Append writes e as one line, rotating the file first if the line would
// take it past MaxSize.
func (l *Log) Append(e Event) error {
	data, err := line(e)
	if err != nil {
		return err
	}
	f, err := openAppend(l.path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size()+int64(len(data)) > MaxSize {
		_ = f.Close()
		if err := l.rotate(fi); err != nil {
			return err
		}
		if f, err = openAppend(l.path); err != nil {
			return err
		}
	} else if err != nil {
		_ = f.Close()
		return fmt.Errorf("appending to %s: %w", l.path, err)
	}
	defer f.Close()
	// One write: O_APPEND puts it at the end as a whole.
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("appending to %s: %w", l.path, err)
	}
	return nil
}

// openAppend opens the history for appending, creating it 0600, refusing
// a symbolic link or anything but a regular file.
func openAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link; not appending to it", path)
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("%s is not a regular file; not appending to it", path)
	}
	return f, nil
}

// rotate shifts the files by one, under the rotation lock, if the file at
// the path is still the full one the caller saw: another process may have
// rotated it meanwhile, and rotating again would drop a file of history.
// A lock another process holds is waited for only briefly (a stopped
// process could hold it forever); the event then goes to the full file,
// and the next append tries again.
func (l *Log) rotate(full os.FileInfo) error {
	unlock, err := lockRotation(l.path + ".lock")
	if err != nil {
		return err
	}
	if unlock == nil {
		if full.Size() >= 2*MaxSize {
			return fmt.Errorf("%s is over %d bytes and its rotation lock is held elsewhere; event dropped", l.path, 2*MaxSize)
		}
		return nil
	}
	defer unlock()
	cur, err := os.Lstat(l.path)
	if err != nil || !os.SameFile(cur, full) {
		return nil // rotated by someone else (or gone): append to the new one
	}
	for i := Backups; i > 1; i-- {
		if err := os.Rename(rotated(l.path, i-1), rotated(l.path, i)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rotating %s: %w", l.path, err)
		}
	}
	if err := os.Rename(l.path, rotated(l.path, 1)); err != nil {
		return fmt.Errorf("rotating %s: %w", l.path, err)
	}
	return nil
}

// rotated is the path of the i-th rotated file (1 is the newest).
func rotated(path string, i int) string { return fmt.Sprintf("%s.%d", path, i) }

// lockTries bound the wait for another process's rotation.
const (
	lockTries = 20
	lockPause = 5 * time.Millisecond
)

// lockRotation takes the rotation lock; a nil unlock and nil error mean
// another process kept it for the whole (short) wait.
func lockRotation(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	for range lockTries {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { _ = f.Close() }, nil // closing lets go of the flock
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			_ = f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		time.Sleep(lockPause)
	}
	_ = f.Close()
	return nil, nil
}
