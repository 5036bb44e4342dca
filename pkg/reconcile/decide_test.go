package reconcile

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// Looks for the table: a proved owner of each health, and no owner.
var (
	running1 = &ownership.State{OwnerID: "o-running", PID: 42}
	absent   = ownership.Record{}
	present  = ownership.Record{Present: true, State: running1}
)

func proved(c ownership.Class, h ownership.Health) ownership.Classification {
	return ownership.Classification{Class: c, Health: h, Signalable: true, Reason: "R", Message: "M"}
}

func gone(c ownership.Class) ownership.Classification {
	return ownership.Classification{Class: c, Reason: "R", Message: "M"}
}

// wantRunning is a name a source declares, wanted running, nothing of it
// found but rec and cls.
func wantRunning(rec ownership.Record, cls ownership.Classification) look {
	return look{name: "bot", declared: true, rec: rec, cls: cls, identity: "id-1", generation: 3, graceful: 5 * time.Second}
}

// wantStopped is the same name wanted stopped as hard as want says.
func wantStopped(want stopping, rec ownership.Record, cls ownership.Classification) look {
	l := wantRunning(rec, cls)
	l.want = want
	return l
}

// undeclared is a name no source declares, in this reconciler's
// inventory, every source valid.
func undeclared(rec ownership.Record, cls ownership.Classification) look {
	return look{name: "bot", rec: rec, cls: cls, inInventory: true, specValid: true, graceful: 5 * time.Second}
}

func with(l look, f func(*look)) look { f(&l); return l }

// commanded is the name wanted running, looked at for an operator's
// command c.
func commanded(c command, rec ownership.Record, cls ownership.Classification) look {
	l := wantRunning(rec, cls)
	l.cmd.command = c
	return l
}

// decideCase is one row: a look, and the plan's step and report.
type decideCase struct {
	name  string
	look  look
	step  step
	phase Phase
	// reason is checked when set; converged and degraded always.
	reason              string
	converged, degraded bool
}

// decideCases has a row for every step decide can answer, so removing a
// branch of decide fails its row; TestDecideCoversEveryStep checks that
// none is missing.
func decideCases() []decideCase {
	healthy := proved(ownership.ClassCompatible, ownership.HealthHealthy)
	finalRec := func(identity string, g spec.Generation, reason string) ownership.Record {
		return ownership.Record{Present: true, State: &ownership.State{OwnerID: "o-new", Identity: identity, Generation: g.Opt(), StoppedAt: new(int64),
			Terminated: &ownership.Terminated{Reason: reason, Message: "invalid token"}}}
	}
	inUse := &ownership.State{OwnerID: "o-running", PID: 42, TransportError: "2 Socket Mode connections", TransportReason: "TokenInUse"}
	blocked := &ownership.State{OwnerID: "o-running", PID: 42, Relay: &ownership.RelayState{Blocked: &ownership.RelayBlock{Reason: "ChannelUnavailable", Message: "no access"}}}
	unseen := &ownership.HeldError{PID: 7, Unseen: true}
	tracked := func(runs bool) func(*look) {
		return func(l *look) { l.tracked = trackedLook{owner: running1, checked: true, runs: runs, alive: runs} }
	}
	return []decideCase{
		// The safety rules, whatever is desired.
		{"holds unreadable: touch nothing", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.holdsErr = errors.New("bad") }),
			stepRefuse, PhaseRefused, ReasonHoldsUnreadable, false, true},
		{"holds unreachable (a fleet's store): touch nothing, the store's reason", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.holdsErr = &ownership.UnreachableError{Op: "reading the hold of bot", Err: errors.New("context deadline exceeded")}
		}), stepRefuse, PhaseRefused, ownership.ReasonStoreUnreachable, false, true},
		{"a released owner still exiting is waited for", wantStopped(stopKill, present, ownership.Classification{Class: ownership.ClassStopped, AmbiguouslyLive: true, Reason: ownership.ReasonOwnerExiting}),
			stepWaitRelease, "", "", false, false},
		{"then refused, its exit watched", with(wantRunning(present, ownership.Classification{Class: ownership.ClassStopped, AmbiguouslyLive: true, Reason: ownership.ReasonOwnerExiting}), func(l *look) { l.waitedRelease = true }),
			stepRefuse, PhaseRefused, ownership.ReasonOwnerExiting, false, true},
		{"a malformed record is refused", wantStopped(stopKill, present, ownership.Classification{Class: ownership.ClassMalformed, AmbiguouslyLive: true, Reason: "MalformedRecord"}),
			stepRefuse, PhaseRefused, "MalformedRecord", false, true},
		{"an unproven live owner is refused", wantRunning(present, ownership.Classification{Class: ownership.ClassCompatible, AmbiguouslyLive: true, Reason: "Unproven"}),
			stepRefuse, PhaseRefused, "Unproven", false, true},

		// Wanted stopped, holds included.
		{"stopped by the spec: the whole ladder", wantStopped(stopKill, present, healthy), stepStop, "", "", false, false},
		{"the stop proved it gone", with(wantStopped(stopKill, present, healthy), func(l *look) { l.stopped = true }),
			stepStopped, PhaseStopped, ReasonStopped, true, false},
		{"held: the stop proved it gone", with(wantStopped(stopTerm, present, healthy), func(l *look) { l.stopped, l.hold = true, &Hold{} }),
			stepHeld, PhaseHeld, ReasonOperatorStopped, true, false},
		{"held without --force, outlasted its SIGTERM: never signalled again", with(wantStopped(stopTerm, present, healthy), func(l *look) { l.termTimedOut = running1.OwnerID }),
			stepStopTimedOut, PhaseRunning, ReasonStopTimedOut, false, true},
		{"the stop timed out", with(wantStopped(stopTerm, present, healthy), func(l *look) { l.stopErr = fmt.Errorf("x: %w", ownership.ErrDidNotExit) }),
			stepStopTimedOut, PhaseRunning, ReasonStopTimedOut, false, true},
		{"the stop could not prove it dead", with(wantStopped(stopKill, present, healthy), func(l *look) { l.stopErr = fmt.Errorf("x: %w", ownership.ErrNotProvenDead) }),
			stepRefuse, PhaseRefused, ReasonNotProvenDead, false, true},
		{"the stop failed", with(wantStopped(stopKill, present, healthy), func(l *look) { l.stopErr = errors.New("control request not written") }),
			stepRefuse, PhaseRefused, ReasonStopFailed, false, true},
		{"another machine leads it", with(wantStopped(stopKill, present, healthy), func(l *look) { l.stopErr = &ownership.LedElsewhereError{Name: "bot", Leader: "m2"} }),
			stepStandBy, PhaseStarting, ownership.ReasonLedElsewhere, false, false},
		{"a newer generation is never stopped", wantStopped(stopKill, present, proved(ownership.ClassNewer, ownership.HealthHealthy)),
			stepAhead, PhaseRunning, ownership.ReasonGenerationAhead, false, false},
		{"no owner: the tracked one is waited for", with(wantStopped(stopKill, absent, gone(ownership.ClassAbsent)), func(l *look) { l.tracked.owner = running1 }),
			stepWaitTracked, "", "", false, false},
		{"no record, the tracked owner runs on", with(wantStopped(stopKill, absent, gone(ownership.ClassAbsent)), tracked(true)),
			stepAwaitTracked, PhaseRefused, ReasonOwnerWithoutRecord, false, true},
		{"no owner: what occupies the name is asked", wantStopped(stopKill, absent, gone(ownership.ClassAbsent)), stepProbe, "", "", false, false},
		{"no owner, occupied out of sight", with(wantStopped(stopKill, absent, gone(ownership.ClassAbsent)), func(l *look) { l.probed, l.occupant = true, unseen }),
			stepCannotExamine, PhaseRefused, ReasonCannotExamine, false, true},
		{"no owner: stopped", with(wantStopped(stopKill, absent, gone(ownership.ClassStopped)), func(l *look) { l.probed = true }),
			stepStopped, PhaseStopped, ReasonStopped, true, false},
		{"no owner, held: Held", with(wantStopped(stopTerm, absent, gone(ownership.ClassAbsent)), func(l *look) { l.probed, l.hold = true, &Hold{} }),
			stepHeld, PhaseHeld, ReasonOperatorStopped, true, false},

		// Wanted running.
		{"healthy: kept", wantRunning(present, healthy), stepKeep, PhaseRunning, ReasonReady, true, false},
		{"healthy, newer: kept, never downgraded", wantRunning(present, proved(ownership.ClassNewer, ownership.HealthHealthy)),
			stepKeep, PhaseRunning, ownership.ReasonGenerationAhead, true, false},
		{"healthy, its relay blocked", wantRunning(ownership.Record{Present: true, State: blocked}, healthy),
			stepKeep, PhaseRunning, "ChannelUnavailable", false, true},
		{"starting: waited for", wantRunning(present, proved(ownership.ClassCompatible, ownership.HealthStarting)), stepAwaitStarting, PhaseStarting, "", false, false},
		{"transport down: left to reconnect", wantRunning(present, proved(ownership.ClassCompatible, ownership.HealthTransportDown)),
			stepReconnect, PhaseRunning, ownership.ReasonTransportUnhealthy, false, false},
		{"transport down for a cause reconnecting will not fix: Degraded with it", wantRunning(ownership.Record{Present: true, State: inUse},
			proved(ownership.ClassCompatible, ownership.HealthTransportDown)), stepReconnect, PhaseRunning, "TokenInUse", false, true},
		{"hung: replaced", wantRunning(present, proved(ownership.ClassCompatible, ownership.HealthHung)), stepReplace, PhaseReplacing, "", false, false},
		{"hung and newer: never signalled", wantRunning(present, proved(ownership.ClassNewer, ownership.HealthHung)),
			stepRefuse, PhaseRefused, ownership.ReasonGenerationAhead, false, true},
		{"drifted: replaced", wantRunning(present, proved(ownership.ClassDrifted, ownership.HealthHealthy)), stepReplace, PhaseReplacing, "", false, false},
		{"replaced: spawned", with(wantRunning(absent, gone(ownership.ClassStopped)), func(l *look) { l.replaced = "Drifted" }), stepSpawn, PhaseReplacing, "Drifted", false, false},
		{"replaced: its successor kept", with(wantRunning(present, healthy), func(l *look) { l.replaced = "Drifted" }), stepKeep, PhaseRunning, ReasonReady, true, false},
		{"our spawn has not published: no second", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.child = "o-child" }),
			stepAwaitChild, "", "", false, false},
		{"no owner: spawned", wantRunning(absent, gone(ownership.ClassAbsent)), stepSpawn, "", ReasonNotReady, false, false},
		{"no owner: the tracked one is waited for first", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.tracked.owner = running1 }),
			stepWaitTracked, "", "", false, false},
		{"no record, the tracked owner runs on: no second", with(wantRunning(absent, gone(ownership.ClassAbsent)), tracked(true)),
			stepAwaitTracked, PhaseRefused, ReasonOwnerWithoutRecord, false, true},
		{"the tracked owner is gone: spawned", with(wantRunning(absent, gone(ownership.ClassAbsent)), tracked(false)), stepSpawn, "", ReasonNotReady, false, false},
		{"the owner believed to run is gone: its exit counted", with(wantRunning(absent, gone(ownership.ClassStopped)), func(l *look) { l.expecting = "o-running" }),
			stepNoteExit, "", "", false, false},
		{"refused for good, this config: not retried", wantRunning(finalRec("id-1", 3, "InvalidToken"), gone(ownership.ClassStopped)),
			stepRefuse, PhaseRefused, "InvalidToken", false, true},
		{"the crash loop says wait", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.crash = crashLook{wait: time.Second, crashes: 2} }),
			stepBackOff, PhaseCrashLoopBackOff, ReasonCrashLoopBackOff, false, true},
		{"occupied by another machine's lead", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.spawn = &spawnTry{occupant: &ownership.LedElsewhereError{Name: "bot", Leader: "m2"}}
		}), stepStandBy, PhaseStarting, ownership.ReasonLedElsewhere, false, false},
		{"occupied out of sight", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.spawn = &spawnTry{occupant: unseen} }),
			stepCannotExamine, PhaseRefused, ReasonCannotExamine, false, true},
		{"occupied: its name lock held", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.spawn = &spawnTry{occupant: &ownership.HeldError{PID: 7, Source: ownership.NameLockFile}}
		}), stepRefuse, PhaseRefused, ReasonOwnerWithoutRecord, false, true},
		{"occupied: a reclaim runs", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.spawn = &spawnTry{occupant: &ownership.ReclaimBusyError{PID: 7}} }),
			stepRefuse, PhaseRefused, ownership.ReasonReclaimBusy, false, true},
		{"an unsafe daemon dir", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.spawn = &spawnTry{prepareErr: errors.New("group writable")} }),
			stepRefuse, PhaseRefused, ReasonUnsafeDaemonDir, false, true},
		{"the spawn failed", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.spawn = &spawnTry{err: errors.New("exec")} }),
			stepFailed, PhaseStopped, ReasonSpawnFailed, false, true},
		{"the new owner is healthy", with(wantRunning(present, healthy), func(l *look) { l.spawn, l.ready = &spawnTry{}, &readiness{why: ReasonNotReady} }),
			stepKeep, PhaseRunning, ReasonReady, true, false},
		{"the new owner is not healthy yet", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.ready = &readiness{err: errors.New("timeout"), why: "Drifted"} }),
			stepNotReady, PhaseStarting, "Drifted", false, false},
		{"our spawn died before healthy, once: respawned at once", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.ready, l.crash = &readiness{err: errors.New("exited"), died: true, child: "o-new"}, crashLook{crashes: 1}
		}), stepNotReady, PhaseStarting, ReasonNotReady, false, false},
		{"our spawn died before healthy, again: backed off", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.ready, l.crash = &readiness{err: errors.New("exited"), died: true, child: "o-new"}, crashLook{crashes: 2, wait: time.Second}
		}), stepBackOff, PhaseCrashLoopBackOff, ReasonCrashLoopBackOff, false, true},
		{"our spawn was refused for good", with(wantRunning(finalRec("id-1", 3, "InvalidToken"), gone(ownership.ClassStopped)), func(l *look) {
			l.ready = &readiness{err: errors.New("exited"), died: true, child: "o-new"}
		}), stepRefuse, PhaseRefused, "InvalidToken", false, true},

		// Not declared: pruning.
		{"not ours: left alone", with(undeclared(present, healthy), func(l *look) { l.inInventory = false }),
			stepUnmanaged, PhaseUnmanaged, ReasonUnmanaged, true, false},
		{"pruned before, nothing runs: out of the status", with(undeclared(absent, gone(ownership.ClassAbsent)), func(l *look) { l.inInventory, l.removed = false, true }),
			stepLeave, "", "", false, false},
		{"pruned before, a tracked owner runs: reported", with(undeclared(absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.inInventory, l.removed, l.tracked.alive = false, true, true
		}), stepUnmanaged, PhaseUnmanaged, ReasonUnmanaged, true, false},
		{"a source is invalid: not pruned", with(undeclared(present, healthy), func(l *look) { l.specValid = false }),
			stepPruneDeferred, PhaseRunning, ReasonPruneDeferred, false, false},
		{"unproven: not pruned", undeclared(present, ownership.Classification{Class: ownership.ClassForeign, AmbiguouslyLive: true, Reason: "Unproven"}),
			stepRefuse, PhaseRefused, "Unproven", false, true},
		{"ours and running: stopped", undeclared(present, healthy), stepStop, "", "", false, false},
		{"the prune's stop failed", with(undeclared(present, healthy), func(l *look) { l.stopErr = fmt.Errorf("x: %w", ownership.ErrNotProvenDead) }),
			stepRefuse, PhaseRefused, ReasonNotProvenDead, false, true},
		{"stopped: it leaves the inventory", with(undeclared(present, healthy), func(l *look) { l.stopped = true }), stepRemove, "", "", false, false},
		{"no owner: the tracked one is waited for before pruning", with(undeclared(absent, gone(ownership.ClassAbsent)), func(l *look) { l.tracked.owner = running1 }),
			stepWaitTracked, "", "", false, false},
		{"no record, the tracked owner runs on: not pruned", with(undeclared(absent, gone(ownership.ClassAbsent)), tracked(true)),
			stepAwaitTracked, PhaseRefused, ReasonOwnerWithoutRecord, false, true},
		{"no owner: what occupies the name is asked before pruning", undeclared(absent, gone(ownership.ClassAbsent)), stepProbe, "", "", false, false},
		{"occupied out of sight: not pruned", with(undeclared(absent, gone(ownership.ClassAbsent)), func(l *look) { l.probed, l.occupant = true, unseen }),
			stepCannotExamine, PhaseRefused, ReasonCannotExamine, false, true},
		{"nothing runs: it leaves the inventory", with(undeclared(absent, gone(ownership.ClassAbsent)), func(l *look) { l.probed = true }), stepRemove, "", "", false, false},
		{"pruned", with(undeclared(absent, gone(ownership.ClassAbsent)), func(l *look) { l.probed, l.pruned = true, true }),
			stepPruned, PhaseStopped, ReasonPruned, true, false},
		{"the inventory could not be written", with(undeclared(absent, gone(ownership.ClassAbsent)), func(l *look) { l.probed, l.pruneErr = true, errors.New("disk full") }),
			stepFailed, PhaseStopped, ReasonPruned, false, true},

		// An operator's commands: refused (nothing sent, nothing held) or
		// allowed, a stop holding the name.
		{"stop: a newer owner is refused", commanded(commandStop, present, proved(ownership.ClassNewer, ownership.HealthHealthy)), stepDecline, "", "", false, false},
		{"stop: an unproven owner is refused", commanded(commandStop, present, ownership.Classification{Class: ownership.ClassCompatible, AmbiguouslyLive: true}),
			stepDecline, "", "", false, false},
		{"stop: a proved owner is held, then stopped", commanded(commandStop, present, healthy), stepHoldStop, "", "", false, false},
		{"stop: another machine leads it, nothing runs here", with(commanded(commandStop, absent, gone(ownership.ClassAbsent)), func(l *look) { l.cmd.ledElsewhere = "machine m2 leads it" }),
			stepDecline, "", "", false, false},
		{"stop: another machine leads it, the holds the fleet's: held everywhere, the leader stops it", with(commanded(commandStop, absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.cmd.ledElsewhere, l.cmd.leader, l.cmd.sharedHolds = "machine m2 leads it", "m2", true
		}), stepHoldLeader, "", "", false, false},
		{"stop: nothing runs: held", commanded(commandStop, absent, gone(ownership.ClassAbsent)), stepHold, "", "", true, false},
		{"stop: the tracked owner runs without its record: held, not stopped", with(commanded(commandStop, absent, gone(ownership.ClassAbsent)), tracked(true)),
			stepHold, "", "", false, false},
		{"restart: not in the spec", with(commanded(commandRestart, present, healthy), func(l *look) { l.declared = false }), stepDecline, "", "", false, false},
		{"restart: the spec says Stopped", with(commanded(commandRestart, present, healthy), func(l *look) { l.cmd.specStopped = true }), stepDecline, "", "", false, false},
		{"restart: holds unreadable", with(commanded(commandRestart, present, healthy), func(l *look) { l.holdsErr = errors.New("bad") }), stepDecline, "", "", false, false},
		{"restart: held", with(commanded(commandRestart, present, healthy), func(l *look) { l.hold = &Hold{} }), stepDecline, "", "", false, false},
		{"restart: a newer owner is refused", commanded(commandRestart, present, proved(ownership.ClassNewer, ownership.HealthHealthy)), stepDecline, "", "", false, false},
		{"restart: a proved owner is stopped, then a pass", commanded(commandRestart, present, healthy), stepRestartStop, "", "", false, false},
		{"restart: nothing runs: a pass", commanded(commandRestart, absent, gone(ownership.ClassAbsent)), stepRestartPass, "", "", false, false},
	}
}

func TestDecideSteps(t *testing.T) {
	for _, tc := range decideCases() {
		p := decide(tc.look)
		if p.step != tc.step || p.phase != tc.phase || (tc.reason != "" && p.reason != tc.reason) || p.converged != tc.converged || p.degraded != tc.degraded {
			t.Errorf("%s: decide = %v %q %q converged=%v degraded=%v; want %v %q %q converged=%v degraded=%v",
				tc.name, p.step, p.phase, p.reason, p.converged, p.degraded, tc.step, tc.phase, tc.reason, tc.converged, tc.degraded)
		}
		if p.step.commandStep() && (p.phase != "" || (p.step == stepDecline && p.message == "")) {
			t.Errorf("%s: the command's answer %v = %+v: no phase; a message when declined", tc.name, p.step, p)
		}
		if !p.step.effect() && !p.step.commandStep() && p.step != stepLeave && p.phase == "" {
			t.Errorf("%s: the report %v says no phase", tc.name, p.step)
		}
	}
}

// Every step decide can answer has its row in decideCases.
func TestDecideCoversEveryStep(t *testing.T) {
	seen := map[step]bool{}
	for _, tc := range decideCases() {
		seen[tc.step] = true
	}
	for s := step(1); int(s) < len(stepNames); s++ {
		if !seen[s] {
			t.Errorf("no row of the table answers %v", s)
		}
	}
}

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
	// ours starting, nothing tracked, probed or counted yet.
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
			return stepProbe // ensuring it is gone
		}
		switch c {
		case ownership.ClassMalformed, ownership.ClassForeign:
			return stepRefuse
		case ownership.ClassAbsent, ownership.ClassStopped:
			return stepSpawn
		case ownership.ClassDrifted, ownership.ClassReplaceable:
			return stepReplace
		}
		switch {
		case h == ownership.HealthHealthy:
			return stepKeep
		case h == ownership.HealthStarting:
			return stepAwaitStarting
		case h == ownership.HealthTransportDown:
			return stepReconnect
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
							case w == stepSpawn && child != "" && (c == ownership.ClassAbsent || child != owner.OwnerID):
								// Ours runs and the record is not its own: it has
								// not published yet, so start no second.
								w = stepAwaitChild
							}
							name := fmt.Sprintf("%v/%v/stopping=%d/ambiguous=%v/child=%q/timedOut=%q", c, cls.Health, stopped, ambiguous, child, timedOut)
							l := wantStopped(stopped, recOf(c), cls)
							l.child, l.termTimedOut = child, timedOut
							got := decide(l)
							if got.step != w {
								t.Errorf("%s: decide = %v, want %v", name, got.step, w)
							}
							if got.escalate != (w == stepStop && stopped == stopKill) {
								t.Errorf("%s: escalate = %v: SIGKILL only when the spec or stop --force asks", name, got.escalate)
							}
							if w == stepStopTimedOut && got.reason != ReasonStopTimedOut {
								t.Errorf("%s: reason %q, want %s", name, got.reason, ReasonStopTimedOut)
							}
							if got.expectNone != (stopped != keepRunning && !cls.AmbiguouslyLive && c != ownership.ClassForeign) {
								t.Errorf("%s: expectNone = %v: a name wanted stopped expects no owner", name, got.expectNone)
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
	rec := ownership.Record{Present: true, State: running1}
	for _, stopped := range []stopping{keepRunning, stopKill, stopTerm} {
		l := wantStopped(stopped, rec, cls)
		if p := decide(l); p.step != stepWaitRelease {
			t.Errorf("stopped=%v: first look = %v, want wait-release", stopped, p.step)
		}
		l.waitedRelease = true
		p := decide(l)
		if p.step != stepRefuse || p.watch != running1 || p.requeue != time.Second || p.reason != ownership.ReasonOwnerExiting {
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
		hold        *Hold
		want        stopping
	}{
		{"running, no hold", false, nil, keepRunning},
		{"the spec says Stopped", true, nil, stopKill},
		{"held without --force", false, &Hold{}, stopTerm},
		{"held with --force", false, &Hold{Force: true}, stopKill},
		{"the spec says Stopped and a hold without --force", true, &Hold{}, stopKill},
	}
	for _, tc := range cases {
		if got := stoppingOf(tc.specStopped, tc.hold); got != tc.want {
			t.Errorf("%s: stoppingOf = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// startGate over the last record's end x the crash loop x a tracked owner
// whose record vanished.
func TestStartGate(t *testing.T) {
	refused := func(identity string, g spec.Generation, reason string) ownership.Record {
		return ownership.Record{Present: true, State: &ownership.State{Identity: identity, Generation: g.Opt(),
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
		l := wantRunning(tc.rec, gone(ownership.ClassStopped))
		l.crash.wait = tc.wait
		if tc.tracked {
			l.tracked = trackedLook{owner: running1, checked: true, runs: true}
		}
		if got := startGate(l); got.step != tc.want {
			t.Errorf("%s: startGate = %v, want %v", tc.name, got.step, tc.want)
		}
	}
}

// A name refused because the ownership store did not answer (its record or
// its hold) is looked at again soon: one transient error must not leave it
// Refused until the resync. Other refusals wait for a change.
func TestUnreachableRefusalIsLookedAtAgainSoon(t *testing.T) {
	unreachable := &ownership.UnreachableError{Op: "reading the hold of bot", Err: errors.New("context deadline exceeded")}
	for _, tc := range []struct {
		name string
		l    look
		want time.Duration
	}{
		{"holds unreachable", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.holdsErr = unreachable }), unreachableRetry},
		{"holds unreadable", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) { l.holdsErr = errors.New("bad") }), 0},
		{"record unreachable", with(wantRunning(absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.cls = ownership.Classification{Class: ownership.ClassMalformed, Reason: ownership.ReasonStoreUnreachable, Message: unreachable.Error()}
		}), unreachableRetry},
	} {
		if p := decide(tc.l); p.step != stepRefuse || p.requeue != tc.want {
			t.Errorf("%s: step %v requeue %v, want a refusal requeued after %v", tc.name, p.step, p.requeue, tc.want)
		}
	}
}
