package ownershiptest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// The names the cases use, and what their owners run as.
const (
	name      = "bot"
	otherName = "other"
)

// desired is what the cases' owners run as and are judged against.
var desired = ownership.Desired{Kind: "discord", Identity: "7040273bec62d43f", Generation: 7}

const (
	// waitLimit bounds every wait on a process or a store, so that a
	// broken backend fails a case instead of hanging it.
	waitLimit = 30 * time.Second
	// shortWait is what a stop gives an owner that will not exit, and how
	// long a second try of a held lock lasts: long enough to be real,
	// short enough to run often.
	shortWait = 300 * time.Millisecond
)

// actionStop is the control request's action of a stop (not a reload).
const actionStop = "stop"

// ladderStop is a stop that may go all the way, with time to spare.
var ladderStop = ownership.StopOptions{Action: actionStop, Graceful: 10 * time.Second, Kill: 10 * time.Second, Escalate: true}

// refusalStop is a stop that must send nothing: SIGKILL is allowed, so a
// store that wrongly went ahead would end the process, and the short
// waits keep such a failure quick.
var refusalStop = ownership.StopOptions{Action: actionStop, Graceful: time.Second, Kill: time.Second, Escalate: true}

// refusing is refusalStop whose Sending fails t: a stop that sends
// nothing must not call it either, for what it writes (an operator's
// hold) would stand after a stop that did nothing.
func refusing(t *testing.T) ownership.StopOptions {
	how := refusalStop
	how.Sending = func() error {
		t.Errorf("Stop called Sending though it had to send nothing")
		return nil
	}
	return how
}

func stopCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// verdict is what a classification must say.
type verdict struct {
	class      ownership.Class
	reason     string
	signalable bool
	ambiguous  bool // AmbiguouslyLive
	health     ownership.Health
}

// observe looks at name and judges it against want.
func observe(t *testing.T, s ownership.Store, n string, want ownership.Desired) (ownership.Observation, ownership.Classification) {
	t.Helper()
	obs := s.Observe(n)
	return obs, obs.Classify(want)
}

// expectVerdict fails t unless name's classification is v.
func expectVerdict(t *testing.T, s ownership.Store, n string, v verdict) ownership.Observation {
	t.Helper()
	obs, c := observe(t, s, n, desired)
	got := verdict{c.Class, c.Reason, c.Signalable, c.AmbiguouslyLive, c.Health}
	if got != v {
		t.Fatalf("Observe(%s) classified %+v, want %+v (%s)", n, got, v, c.Message)
	}
	return obs
}

// decide observes name's live, signalable owner and returns its record:
// what a reconciler decides on.
func decide(t *testing.T, s ownership.Store, o Owner) ownership.State {
	t.Helper()
	obs := expectVerdict(t, s, name, verdict{ownership.ClassCompatible, ownership.ReasonOwnerHealthy, true, false, ownership.HealthHealthy})
	st := *obs.Record.State
	if st.OwnerID != o.Record().OwnerID || st.PID != o.PID() {
		t.Fatalf("Observe(%s) shows owner %s (pid %d), started %s (pid %d)", name, st.OwnerID, st.PID, o.Record().OwnerID, o.PID())
	}
	return st
}

// expectRefused fails t unless err is a stop's refusal: not nil (never
// "gone"), no ladder run, the reason given, and a message saying nothing
// was sent. It does not stop the case: what the process saw is checked
// after it, and says more.
func expectRefused(t *testing.T, err error, reason string, is error) {
	t.Helper()
	t.Logf("Stop: %v", err)
	switch {
	case err == nil:
		t.Errorf("Stop = nil, reporting gone an owner it had to refuse (want %s)", reason)
		return
	case errors.Is(err, ownership.ErrDidNotExit), errors.Is(err, ownership.ErrNotProvenDead):
		t.Errorf("Stop = %v: it ran the ladder on an owner it had to refuse (want %s)", err, reason)
		return
	}
	if got := ownership.Reason(err); got != reason {
		t.Errorf("Stop = %v: reason %s, want %s", err, got, reason)
	}
	if is != nil && !errors.Is(err, is) {
		t.Errorf("Stop = %v: does not match %v", err, is)
	}
	if !strings.Contains(err.Error(), "nothing was sent") || !errors.Is(err, ownership.ErrNothingSent) {
		t.Errorf("Stop = %v: does not say that nothing was sent, or does not match ErrNothingSent", err)
	}
}

// expectBlocked fails t unless err is SpawnBlocked's report of reason.
func expectBlocked(t *testing.T, err error, reason string, is error) {
	t.Helper()
	t.Logf("SpawnBlocked: %v", err)
	if err == nil {
		t.Fatalf("SpawnBlocked = nil, want %s: a second owner would start", reason)
	}
	if got := ownership.Reason(err); got != reason {
		t.Errorf("SpawnBlocked = %v: reason %s, want %s", err, got, reason)
	}
	if !errors.Is(err, is) {
		t.Errorf("SpawnBlocked = %v: does not match %v", err, is)
	}
}

// expectSame fails t, going on, if name's fingerprint is no longer before.
func expectSame(t *testing.T, w World, n, before, what string) {
	t.Helper()
	if after := w.Fingerprint(t, n); after != before {
		t.Errorf("%s changed what is kept about %s:\nbefore: %s\nafter:  %s", what, n, before, after)
	}
}

// waitExited fails t unless p exits within waitLimit.
func waitExited(t *testing.T, p Process, why string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := p.Wait(ctx); err != nil {
		t.Fatalf("pid %d did not exit %s: %v", p.PID(), why, err)
	}
}

// recordOf is a valid, healthy record of a live owner at want, naming pid
// and incarnation, dated by s's clock and boot: what a forger or a copy
// would write.
func recordOf(s ownership.Store, pid int, incarnation, ownerID string, want ownership.Desired) ownership.State {
	now := s.Now().UnixMilli()
	return ownership.State{
		Version: ownership.RecordVersion, Kind: want.Kind, PID: pid, OwnerID: ownerID, Identity: want.Identity,
		Incarnation: incarnation, StartedAt: now - 1000, HeartbeatAt: now, TransportHealthy: true,
		Generation: want.Generation.Opt(), BootID: s.Boot().ID,
	}
}

// forgedOwnerID is the owner id of records no daemon published.
const forgedOwnerID = "4100-00000000-0000-4000-8000-00000000f00d"
