package ownership

import "gjc.dev/reconciler/pkg/ownership/internal/jswriter"

// OwnerLock is owner.lock, and owner.lock.reclaim, which has the same
// shape: who created it. It is created whole by link(2), so a reader never
// sees a partial one.
type OwnerLock struct {
	PID         int
	Incarnation string
	CreatedAt   int64 // unix ms
}

// Marshal returns the lock as the reference writes it:
// {"pid":N,"incarnation":"...","createdAt":ms}\n.
func (l *OwnerLock) Marshal() []byte {
	w := jswriter.New(96)
	w.Open()
	w.Key("pid").Int(int64(l.PID))
	w.Key("incarnation").Str(l.Incarnation)
	w.Key("createdAt").Int(l.CreatedAt)
	w.Close()
	return append(w.Bytes(), '\n')
}

// ParseOwnerLock judges data as a lock with the reference's rules
// (isChatDaemonOwnerLock): pid a safe integer > 0, incarnation a string,
// createdAt a number; stricter, createdAt integral milliseconds and no key
// twice. Whether the incarnation has authority is judged when deciding if
// the lock is stale, not here. Other keys are ignored.
func ParseOwnerLock(data []byte) (*OwnerLock, error) {
	obj, err := parseObject(data)
	if err != nil {
		return nil, &MalformedError{Path: LockFile, Err: err}
	}
	f := fields{obj: obj, file: LockFile}
	l := &OwnerLock{}
	l.PID = f.pid("pid")
	if raw, ok := f.required("incarnation"); ok {
		var isString bool
		if l.Incarnation, isString = jsString(raw); !isString {
			f.fail("incarnation", "must be a string, got %s", shown(raw))
		}
	}
	l.CreatedAt = f.time("createdAt")
	if f.err != nil {
		return nil, f.err
	}
	return l, nil
}
