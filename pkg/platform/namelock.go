package platform

import "fmt"

// NameLock is a lock held by the kernel for this process: it is dropped
// when the process exits, however it exits, and no file operation can
// remove it or take it away. It is the guard that survives an `rm -rf` of
// the state directory or the restore of an old backup, which no lock file
// can.
type NameLock struct {
	key string
	sys *nameLockSys
}

// NameHolder is the process holding a name lock, as the kernel names it:
// PID 0 and UID -1 when it could not.
type NameHolder struct {
	PID int
	UID int
}

// NameHeldError reports a name lock held by another process.
type NameHeldError struct {
	Key    string
	Holder NameHolder
}

func (e *NameHeldError) Error() string {
	if e.Holder.PID == 0 {
		return fmt.Sprintf("name lock %q is held by another process", e.Key)
	}
	return fmt.Sprintf("name lock %q is held by pid %d (uid %d)", e.Key, e.Holder.PID, e.Holder.UID)
}

// unknownHolder is a holder the kernel could not name.
var unknownHolder = NameHolder{UID: -1}

// TakeNameLock takes the name lock key for this process; it fails with a
// *NameHeldError while another process holds it. Keys are at most
// MaxNameLockKey bytes.
func TakeNameLock(key string) (*NameLock, error) {
	if err := checkNameLockKey(key); err != nil {
		return nil, err
	}
	sys, err := takeNameLock(key)
	if err != nil {
		return nil, err
	}
	return &NameLock{key: key, sys: sys}, nil
}

// NameLockHolder reports the process holding the name lock key, if any.
// Any user can bind a name, so a holder of another UID is a squatter, not
// a daemon of ours: callers say so.
func NameLockHolder(key string) (h NameHolder, held bool, err error) {
	if err := checkNameLockKey(key); err != nil {
		return unknownHolder, false, err
	}
	return nameLockHolder(key)
}

// Release drops the lock; releasing twice does nothing.
func (l *NameLock) Release() error {
	if l == nil {
		return nil
	}
	return l.sys.release()
}

// MaxNameLockKey is the longest key: an abstract unix socket name has at
// most 107 bytes after its leading NUL.
const MaxNameLockKey = 107

func checkNameLockKey(key string) error {
	if key == "" || len(key) > MaxNameLockKey {
		return fmt.Errorf("name lock key %q: must be 1 to %d bytes", key, MaxNameLockKey)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return fmt.Errorf("name lock key %q: only printable ASCII without spaces", key)
		}
	}
	return nil
}

// NameLocks are name locks taken together.
type NameLocks []*NameLock

// TakeNameLocks takes every key, or none: on the first that another process
// holds (a *NameHeldError) or that fails, those already taken are released.
func TakeNameLocks(keys ...string) (NameLocks, error) {
	var held NameLocks
	for _, key := range keys {
		l, err := TakeNameLock(key)
		if err != nil {
			held.Release()
			return nil, err
		}
		held = append(held, l)
	}
	return held, nil
}

// Release drops every lock; releasing twice does nothing.
func (ls NameLocks) Release() {
	for _, l := range ls {
		_ = l.Release()
	}
}
