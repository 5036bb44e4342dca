package reconcile

import (
	"fmt"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
)

// decide over every record class x health x desired state (running, or
// stopped by the spec or a --force hold, or by a hold without --force) x
// our own spawn still starting x an owner that outlasted a stop without
// --force: the safety rules come first (nothing unproven is acted on,
// whatever is desired), then the desired state; a stop escalates only
// when the spec or a --force hold asks it to.
func TestDecide(t *testing.T) {
	owner := &ownership.State{OwnerID: "o-running"}
	recOf := func(c ownership.Class) ownership.Record {
		if c == ownership.ClassAbsent {
			return ownership.Record{}
		}
		return ownership.Record{Present: true, State: owner}
	}
	signalable := func(c ownership.Class) bool {
		return c == ownership.ClassDrifted || c == ownership.ClassReplaceable || c == ownership.ClassCompatible || c == ownership.ClassNewer
	}
	healthsOf := func(c ownership.Class) []ownership.Health {
		if signalable(c) {
			return []ownership.Health{ownership.HealthHealthy, ownership.HealthStarting, ownership.HealthHung, ownership.HealthTransportDown}
		}
		return []ownership.Health{ownership.HealthNone}
	}
	// want is the step for a proved (not ambiguous) owner, no spawn of
	// ours starting.
	want := func(c ownership.Class, h ownership.Health, stopped stopping, timedOut string) step {
		if stopped != keepRunning {
			switch {
			case c == ownership.ClassMalformed, c == ownership.ClassForeign:
				return stepRefuse
			case c == ownership.ClassNewer:
				return stepAhead
			case signalable(c) && stopped == stopTerm && timedOut == owner.OwnerID:
				return stepStopTimedOut // never signalled again, never killed
			case signalable(c):
				return stepStop
			}
			return stepEnsureGone
		}
		switch c {
		case ownership.ClassMalformed, ownership.ClassForeign:
			return stepRefuse
		case ownership.ClassAbsent, ownership.ClassStopped:
			return stepStart
		case ownership.ClassDrifted, ownership.ClassReplaceable:
			return stepReplace
		}
		switch {
		case h != ownership.HealthHung:
			return stepKeep
		case c == ownership.ClassNewer:
			return stepRefuse // a hung newer owner is never signalled
		}
		return stepReplace
	}
	classes := []ownership.Class{ownership.ClassAbsent, ownership.ClassStopped, ownership.ClassMalformed, ownership.ClassForeign,
		ownership.ClassDrifted, ownership.ClassReplaceable, ownership.ClassCompatible, ownership.ClassNewer}
	n := 0
	for _, c := range classes {
		for _, h := range healthsOf(c) {
			for _, stopped := range []stopping{keepRunning, stopKill, stopTerm} {
				for _, ambiguous := range []bool{false, true} {
					for _, child := range []string{"", "o-child", "o-running"} {
						for _, timedOut := range []string{"", "o-other", owner.OwnerID} {
							cls := ownership.Classification{Class: c, Health: h, Signalable: signalable(c) && !ambiguous,
								AmbiguouslyLive: ambiguous || c == ownership.ClassMalformed, Reason: "R", Message: "M"}
							if ambiguous && signalable(c) {
								cls.Health = ownership.HealthNone // as Classify leaves an unproven owner
							}
							w := want(c, cls.Health, stopped, timedOut)
							switch {
							case cls.AmbiguouslyLive:
								w = stepRefuse // unproven: touch nothing, whatever is desired
							case w == stepStart && child != "" && (c == ownership.ClassAbsent || child != owner.OwnerID):
								// Ours runs and the record is not its own: it has
								// not published yet, so start no second.
								w = stepAwaitChild
							}
							name := fmt.Sprintf("%v/%v/stopping=%d/ambiguous=%v/child=%q/timedOut=%q", c, cls.Health, stopped, ambiguous, child, timedOut)
							got := decide(recOf(c), cls, stopped, memory{child: child, termTimedOut: timedOut})
							if got.step != w {
								t.Errorf("%s: decide = %v, want %v", name, got.step, w)
							}
							if got.escalate != (w == stepStop && stopped == stopKill) {
								t.Errorf("%s: escalate = %v: SIGKILL only when the spec or stop --force asks", name, got.escalate)
							}
							if w == stepStopTimedOut && got.reason != ReasonStopTimedOut {
								t.Errorf("%s: reason %q, want %s", name, got.reason, ReasonStopTimedOut)
							}
							n++
						}
					}
				}
			}
		}
	}
	t.Logf("%d cases", n)
}

// A released owner that has not exited is waited for once, then refused;
// it is never signalled or replaced meanwhile, whatever is desired.
func TestDecideWaitsOutAReleasedOwner(t *testing.T) {
	cls := ownership.Classification{Class: ownership.ClassStopped, AmbiguouslyLive: true, Reason: ownership.ReasonOwnerExiting}
	for _, stopped := range []stopping{keepRunning, stopKill, stopTerm} {
		if p := decide(ownership.Record{Present: true}, cls, stopped, memory{}); p.step != stepWaitRelease {
			t.Errorf("stopped=%v: first look = %v, want wait-release", stopped, p.step)
		}
		p := decide(ownership.Record{Present: true}, cls, stopped, memory{waitedRelease: true})
		if p.step != stepRefuse || !p.exiting || p.reason != ownership.ReasonOwnerExiting {
			t.Errorf("stopped=%v: after the wait = %+v, want a refusal that watches the exit", stopped, p)
		}
	}
}

// How the spec's state and an operator's hold want a name: a hold without
// --force never asks for SIGKILL; the spec's own Stopped, or stop --force,
// does.
func TestStoppingOf(t *testing.T) {
	cases := []struct {
		name        string
		specStopped bool
		held        *Hold
		want        stopping
	}{
		{"running, no hold", false, nil, keepRunning},
		{"the spec says Stopped", true, nil, stopKill},
		{"held without --force", false, &Hold{}, stopTerm},
		{"held with --force", false, &Hold{Force: true}, stopKill},
		{"the spec says Stopped and a hold without --force", true, &Hold{}, stopKill},
	}
	for _, tc := range cases {
		if got := stoppingOf(tc.specStopped, tc.held); got != tc.want {
			t.Errorf("%s: stoppingOf = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// startGate over the last record's end x the crash loop x a tracked owner
// whose record vanished.
func TestStartGate(t *testing.T) {
	gen := func(g int64) *int64 { return &g }
	refused := func(identity string, g int64, reason string) ownership.Record {
		return ownership.Record{Present: true, State: &ownership.State{Identity: identity, Generation: gen(g),
			Terminated: &ownership.Terminated{Reason: reason, Message: "invalid token"}}}
	}
	cases := []struct {
		name    string
		rec     ownership.Record
		wait    time.Duration
		tracked bool
		want    step
	}{
		{"no record", ownership.Record{}, 0, false, stepSpawn},
		{"no record, crash loop", ownership.Record{}, 4 * time.Second, false, stepBackOff},
		{"refused for good, this config", refused("id-1", 3, "InvalidToken"), 0, false, stepRefuse},
		{"refused for good beats the crash loop", refused("id-1", 3, "InvalidToken"), time.Minute, false, stepRefuse},
		{"refused, but the token changed", refused("id-0", 3, "InvalidToken"), 0, false, stepSpawn},
		{"refused, but the generation changed", refused("id-1", 2, "InvalidToken"), 0, false, stepSpawn},
		{"transport stopped is retried", refused("id-1", 3, daemonproto.ReasonTransportStopped), 0, false, stepSpawn},
		{"transport stopped, crash loop", refused("id-1", 3, daemonproto.ReasonTransportStopped), time.Second, false, stepBackOff},
		{"a tracked owner still runs", ownership.Record{}, 0, true, stepAwaitTracked},
		{"a tracked owner beats a final refusal", refused("id-1", 3, "InvalidToken"), 0, true, stepAwaitTracked},
		{"a tracked owner beats the crash loop", ownership.Record{}, time.Minute, true, stepAwaitTracked},
	}
	for _, tc := range cases {
		if got := startGate(tc.rec, "id-1", 3, tc.wait, tc.tracked); got.step != tc.want {
			t.Errorf("%s: startGate = %v, want %v", tc.name, got.step, tc.want)
		}
	}
}
