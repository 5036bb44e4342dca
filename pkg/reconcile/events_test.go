package reconcile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

type recorded struct{ name, typ, reason, message string }

// recorder is an EventRecorder that keeps what it is told.
type recorder struct {
	mu     sync.Mutex
	events []recorded
}

func (r *recorder) Record(name, eventType, reason, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, recorded{name, eventType, reason, message})
}

// take returns the events so far and forgets them.
func (r *recorder) take() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

func reasons(evs []recorded) string {
	var out []string
	for _, e := range evs {
		out = append(out, e.reason)
	}
	return strings.Join(out, ",")
}

func find(evs []recorded, reason string) (recorded, bool) {
	for _, e := range evs {
		if e.reason == reason {
			return e, true
		}
	}
	return recorded{}, false
}

// killedDaemon is an executable that, run as the daemon, kills itself
// with SIGKILL: a crash whose wait status only the parent sees.
func killedDaemon(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "daemon")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nkill -9 $$\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// eventReconciler is a reconciler on a fake store whose spawns run exe
// for real, recording its events.
func eventReconciler(t *testing.T, store ownership.Store, exe string) (*Reconciler, *recorder) {
	t.Helper()
	dir := privateAgentDir(t)
	// The fake store keeps records in memory; daemon.log is a real file.
	if err := os.MkdirAll(ownership.PathsFor(dir, "bot").Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	r, err := New(Options{AgentDir: dir, Executable: exe, Log: logr.Discard(), Store: store, Events: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r, rec
}

// Replacing an owner that ignores SIGTERM records the stop, its escalation
// to SIGKILL and the owner's end; the replacement's spawn; and, for that
// spawn (a child of this process) killed by a signal, how it ended: in the
// event, in the status's LastExit and in the crash message.
func TestEventsOfAnEscalatedReplaceAndAChildKilled(t *testing.T) {
	w := fakestore.New()
	r, rec := eventReconciler(t, w.Store(), killedDaemon(t))
	d := slackDaemon(100 * time.Millisecond)
	old, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 0}, fakestore.OwnerOptions{Stubborn: true})
	if err != nil {
		t.Fatal(err)
	}
	out := r.Reconcile(context.Background(), "bot", d, &spec.Result{Daemons: []*spec.Daemon{d}})
	evs := rec.take()
	if got := reasons(evs); !strings.HasPrefix(got, "Stopping,Killed,Stopped,Spawned,Exited") {
		t.Fatalf("events %s, want Stopping,Killed,Stopped,Spawned,Exited first\n%+v", got, evs)
	}
	killed, _ := find(evs, EventKilled)
	if killed.typ != EventWarning || !strings.Contains(killed.message, fmt.Sprintf("pid %d", old.PID())) || !strings.Contains(killed.message, "SIGKILL") {
		t.Errorf("escalation event %+v", killed)
	}
	exited, _ := find(evs, EventExited)
	if exited.typ != EventWarning || !strings.Contains(exited.message, "killed by signal SIGKILL") {
		t.Errorf("exit event %+v, want the child's signal", exited)
	}
	ex := out.Status.LastExit
	if ex == nil || ex.Signal != "SIGKILL" || ex.Code != nil || ex.Released {
		t.Fatalf("status LastExit %+v, want SIGKILL, no code, not released", ex)
	}
	if !strings.Contains(out.Status.Message, "killed by signal SIGKILL") {
		t.Errorf("status message %q does not say how it ended", out.Status.Message)
	}
	// The phase change is an event too.
	if e, ok := find(evs, out.Status.Reason); !ok || !strings.Contains(e.message, "phase "+string(out.Status.Phase)) {
		t.Errorf("no phase event for %s %s in %+v", out.Status.Phase, out.Status.Reason, evs)
	}
}

// An owner this process did not spawn (a previous reconciler's) that dies
// is reported with what is known: its record, never a made-up code.
func TestEventOfANonChildExit(t *testing.T) {
	w := fakestore.New()
	r, rec := eventReconciler(t, w.Store(), killedDaemon(t))
	d := slackDaemon(100 * time.Millisecond)
	p, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 1}, fakestore.OwnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := &spec.Result{Daemons: []*spec.Daemon{d}}
	out := r.Reconcile(context.Background(), "bot", d, res)
	if out.Status.Phase != PhaseRunning || !out.Status.Converged {
		t.Fatalf("status %s %s %s", out.Status.Phase, out.Status.Reason, out.Status.Message)
	}
	if evs := rec.take(); reasons(evs) != ReasonReady || evs[0].typ != EventNormal || !strings.Contains(evs[0].message, "phase Running (was none)") {
		t.Errorf("first look: events %+v, want the one phase change to Running", evs)
	}
	// A steady name records nothing.
	r.Reconcile(context.Background(), "bot", d, res)
	if evs := rec.take(); len(evs) != 0 {
		t.Errorf("events on a look that changed nothing: %+v", evs)
	}
	p.Kill()
	out = r.Reconcile(context.Background(), "bot", d, res)
	evs := rec.take()
	exited, ok := find(evs, EventExited)
	if !ok || exited.typ != EventWarning {
		t.Fatalf("no Warning Exited event: %+v", evs)
	}
	want := fmt.Sprintf("pid %d exited; how is not known (it is not this reconciler's child); it did not release its record", p.PID())
	if exited.message != want {
		t.Errorf("exit event %q, want %q", exited.message, want)
	}
	// Respawned at once; that child (the test's daemon) kills itself, and
	// its end, known to the parent, is the last exit.
	if got := reasons(evs); !strings.HasPrefix(got, "Exited,Spawned,Exited") {
		t.Errorf("events %s, want Exited,Spawned,Exited first", got)
	}
	if ex := out.Status.LastExit; ex == nil || ex.Signal != "SIGKILL" || ex.PID == p.PID() {
		t.Errorf("LastExit %+v, want the respawned child's SIGKILL", ex)
	}
}

func intp(i int) *int { return &i }

// describeExit says what is known, from the wait status of a child and
// from the record when it is still the owner's own.
func TestDescribeExit(t *testing.T) {
	at := time.Unix(1700000000, 0)
	stopped := int64(1)
	dead := func(e daemonproto.Exit) *child {
		c := &child{ownerID: "o1", pid: 42, done: make(chan struct{}), exit: e}
		close(c.done)
		return c
	}
	own := func(s ownership.State) ownership.Record {
		s.OwnerID = "o1"
		s.PID = 42
		return ownership.Record{Present: true, State: &s}
	}
	cases := []struct {
		name string
		rec  ownership.Record
		c    *child
		want Exit
	}{
		{"child killed, record left", own(ownership.State{}), dead(daemonproto.Exit{Code: -1, Signal: "SIGKILL"}),
			Exit{PID: 42, Signal: "SIGKILL", Message: "pid 42 killed by signal SIGKILL; it did not release its record"}},
		{"child exit 78, terminated", own(ownership.State{StoppedAt: &stopped, Terminated: &ownership.Terminated{Reason: "InvalidCredentials", Message: "token refused"}}), dead(daemonproto.Exit{Code: 78}),
			Exit{PID: 42, Code: intp(78), Released: true, Terminated: &ownership.Terminated{Reason: "InvalidCredentials", Message: "token refused"},
				Message: "pid 42 exited with code 78 (refused by the service for good); its record says InvalidCredentials: token refused"}},
		{"child exit 0, released", own(ownership.State{StoppedAt: &stopped}), dead(daemonproto.Exit{Code: 0}),
			Exit{PID: 42, Code: intp(0), Released: true, Message: "pid 42 exited with code 0 (stopped on request); it released its record first"}},
		{"child that never published", ownership.Record{State: &ownership.State{OwnerID: "other", PID: 7}}, dead(daemonproto.Exit{Code: 3}),
			Exit{PID: 42, Code: intp(3), Message: "pid 42 exited with code 3 (the name is held by another owner); it left no record of its own"}},
		{"not a child, released", own(ownership.State{StoppedAt: &stopped}), nil,
			Exit{PID: 42, Released: true, Message: "pid 42 exited; how is not known (it is not this reconciler's child); it released its record first"}},
		{"not a child, no record, pid unknown", ownership.Record{}, nil,
			Exit{Message: "the daemon exited; how is not known (it is not this reconciler's child); it left no record of its own"}},
	}
	show := func(e Exit) string {
		var term any
		if e.Terminated != nil {
			term = *e.Terminated
		}
		return fmt.Sprintf("pid=%d owner=%s code=%v signal=%q released=%v terminated=%+v\n%s", e.PID, e.OwnerID, deref(e.Code), e.Signal, e.Released, term, e.Message)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pid := 0
			if c.c != nil {
				pid = c.c.pid
			}
			got := describeExit("o1", pid, c.rec, c.c, at)
			c.want.OwnerID = "o1"
			if show(got) != show(c.want) {
				t.Errorf("got  %s\nwant %s", show(got), show(c.want))
			}
			if !got.At.Time.Equal(at) {
				t.Errorf("At %v, want %v", got.At, at)
			}
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// A spec's errors are Warning events of the loop as a whole, and a spec
// valid again after them a Normal one.
func TestSpecEvents(t *testing.T) {
	rec := &recorder{}
	r := &Reconciler{opts: Options{Events: rec}}
	bad := &spec.Result{Errors: []spec.Issue{{File: "/x/daemons.yaml", Index: 0, Field: "spec.provider", Detail: "Unsupported value"}}}
	r.specEvents(bad, true)
	evs := rec.take()
	if len(evs) != 1 || evs[0].name != "" || evs[0].typ != EventWarning || evs[0].reason != EventSpecError || !strings.Contains(evs[0].message, "/x/daemons.yaml[0]") {
		t.Errorf("events %+v", evs)
	}
	r.specEvents(&spec.Result{}, false)
	if evs := rec.take(); len(evs) != 1 || evs[0].reason != EventSpecValid || evs[0].typ != EventNormal {
		t.Errorf("valid again: %+v", evs)
	}
	r.specEvents(&spec.Result{}, true)
	if evs := rec.take(); len(evs) != 0 {
		t.Errorf("valid, as before: %+v", evs)
	}
	// Without a recorder nothing happens (and nothing panics).
	(&Reconciler{}).specEvents(bad, true)
}
