package platform

import (
	"sync/atomic"
	"time"
)

// bootTime caches the first successful read: the boot instant does not
// change while we run, and re-reading it could only let clock adjustments
// move it. A failed read is not cached, so a transient error (EMFILE) does
// not stick.
var bootTime atomic.Pointer[time.Time]

// BootTime returns when the machine booted, to the second (rounded down on
// Linux). A process record that started before it belongs to a previous
// boot, so its process is dead whatever its PID names now.
func BootTime() (time.Time, error) {
	if t := bootTime.Load(); t != nil {
		return *t, nil
	}
	t, err := readBootTime()
	if err != nil {
		return time.Time{}, err
	}
	bootTime.CompareAndSwap(nil, &t)
	return *bootTime.Load(), nil
}
