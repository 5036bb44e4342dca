package fakestore

import (
	"fmt"
	"os"

	"gjc.dev/reconciler/pkg/incarnation"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// The fake proves a process as fsstore does (ownership's probeOwner and
// OpenOwner), from its own tables instead of the kernel's: the same facts,
// the same checks in the same order, the same errors. The caller holds the
// world's lock.

// processFacts is what the world says of the process s names, judged
// against the claim s makes for name: live with the recorded incarnation is
// the owner only if it claims to be name's daemon running as s's owner.
func (w *World) processFacts(name string, s *ownership.State) ownership.ProcessFacts {
	if w.faults.hidden[s.PID] {
		// Liveness unknown: never treated as dead.
		return ownership.ProcessFacts{Alive: true, Err: fmt.Errorf("liveness of pid %d: %w", s.PID, os.ErrPermission)}
	}
	p := w.procs[s.PID]
	if p == nil || p.exited {
		return ownership.ProcessFacts{}
	}
	f := ownership.ProcessFacts{
		Alive: true, Current: p.incarnation,
		Equal:   p.incarnation == s.Incarnation,
		Differs: p.incarnation != s.Incarnation && incarnation.Valid(s.Incarnation),
	}
	if !f.Equal {
		return f
	}
	want := ownership.DaemonClaim{AgentDir: AgentDir, Name: name, OwnerID: s.OwnerID}
	why := ""
	switch {
	case p.claim == nil:
		why = "its command line is not that of a daemon"
	case p.claim.Name != name:
		why = "it is the daemon of another name"
	case p.claim.OwnerID != s.OwnerID:
		why = "it runs as another owner than the record says"
	}
	if why != "" {
		f.Equal, f.NotDaemon = false, &ownership.NotDaemonError{PID: s.PID, Want: want, Why: why}
	}
	return f
}

// openOwner makes every check a signal needs and returns the process of the
// owner decided on: name's record must still name that owner, be one want
// may touch, be of this boot, and its process must prove to be it. An owner
// proved gone is an error matching platform.ErrProcessGone.
func (w *World) openOwner(name string, want *ownership.Desired, decided ownership.State) (*Process, error) {
	rec := w.record(name)
	switch {
	case !rec.Present:
		return nil, &ownership.OwnerChangedError{Field: ownership.StateFile, Want: "owner " + decided.OwnerID, Got: "no record"}
	case rec.Malformed != nil:
		return nil, rec.Malformed
	}
	cur := rec.State
	if err := ownership.MaySignal(decided, *cur, want, w.boot); err != nil {
		return nil, err
	}
	f := w.processFacts(name, cur)
	switch {
	case !f.Alive:
		return nil, &goneError{pid: cur.PID}
	case f.Differs:
		return nil, &goneError{pid: cur.PID, reused: true,
			err: &platform.IncarnationMismatchError{PID: cur.PID, Want: cur.Incarnation, Got: f.Current}}
	case f.NotDaemon != nil:
		return nil, &goneError{pid: cur.PID, notDaemon: true, err: f.NotDaemon}
	case !f.Equal:
		return nil, &ownership.NotSignalableError{PID: cur.PID, Code: ownership.ReasonOwnerUnverifiable,
			Detail: "live, but its incarnation cannot be proved", Err: f.Err}
	}
	return w.procs[cur.PID], nil
}
