package bus

import (
	"errors"
	"io/fs"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

// Grace is how long an outbox file that cannot be taken is looked at
// again before it fails: a producer that writes in place (not a temp
// name renamed into place) may not be done with it yet.
const Grace = 2 * time.Second

// Verdict is what a consumer does with an outbox entry Box.Take judged.
type Verdict int

const (
	// Admit: a message; queue it.
	Admit Verdict = iota
	// Later: refused, but young enough to be half written: look again then.
	Later
	// Refuse: refused for good; to failed/ with the reason.
	Refuse
	// Gone: no longer there; nothing to do.
	Gone
)

func (v Verdict) String() string {
	return [...]string{"admit", "later", "refuse", "gone"}[v]
}

// Judge decides on an entry that Take answered err for, last modified at
// mtime, looked at now, and when to look again for Later. An entry that is
// not a regular file of ours is refused at once: writing in place cannot make
// it one. Anything else waits until it is Grace old; a
// modification time more than Grace ahead of now is not believed (it
// would hold the file back for as long).
func Judge(err error, mtime, now time.Time) (Verdict, time.Time) {
	switch {
	case err == nil:
		return Admit, time.Time{}
	case errors.Is(err, fs.ErrNotExist):
		return Gone, time.Time{}
	case errors.Is(err, platform.ErrUnsafeFile):
		return Refuse, time.Time{}
	case mtime.IsZero(), mtime.After(now.Add(Grace)), !now.Before(mtime.Add(Grace)):
		return Refuse, time.Time{}
	}
	return Later, mtime.Add(Grace)
}
