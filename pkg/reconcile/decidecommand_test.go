package reconcile

import (
	"errors"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// An operator's command's answers, word for word as the CLI prints them,
// and a stop escalates only when --force asks (l.want).
func TestDecideCommand(t *testing.T) {
	healthy := proved(ownership.ClassCompatible, ownership.HealthHealthy)
	cases := []struct {
		name     string
		look     look
		step     step
		message  string
		escalate bool
	}{
		{"stop of a newer owner", commanded(commandStop, present, proved(ownership.ClassNewer, ownership.HealthHealthy)), stepDecline,
			"bot daemon is newer than this controller; upgrade this controller before stop", false},
		{"restart of a newer owner", commanded(commandRestart, present, proved(ownership.ClassNewer, ownership.HealthHealthy)), stepDecline,
			"bot daemon is newer than this controller; upgrade this controller before restart", false},
		{"stop of a foreign record", commanded(commandStop, present, ownership.Classification{Class: ownership.ClassForeign, Message: "not ours"}), stepDecline,
			"bot daemon ownership changed; refusing to signal (not ours)", false},
		{"stop without --force", with(commanded(commandStop, present, healthy), func(l *look) { l.want = stopTerm }), stepHoldStop, "", false},
		{"stop --force", with(commanded(commandStop, present, healthy), func(l *look) { l.want = stopKill }), stepHoldStop, "", true},
		{"stop where another leads", with(commanded(commandStop, absent, gone(ownership.ClassAbsent)), func(l *look) { l.cmd.ledElsewhere = "machine m2 leads it" }), stepDecline,
			"bot not stopped: machine m2 leads it; run the stop there (nothing was sent, nothing is held)", false},
		{"stop where another leads, the holds the fleet's", with(commanded(commandStop, absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.cmd.ledElsewhere, l.cmd.leader, l.cmd.sharedHolds, l.want = "machine m2 leads it", "m2", true, stopKill
		}), stepHoldLeader, "held stopped on every machine; machine m2, which leads bot, stops it", true},
		{"stop of a proved owner where another leads, the holds the fleet's", with(commanded(commandStop, present, healthy), func(l *look) {
			l.cmd.leader, l.cmd.sharedHolds = "m2", true
		}), stepHoldLeader, "held stopped on every machine; machine m2, which leads bot, stops it", false},
		{"stop where who leads is unreadable, the holds the fleet's", with(commanded(commandStop, absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.cmd.ledElsewhere, l.cmd.sharedHolds = "which machine leads it cannot be read: etcd unreachable", true
		}), stepDecline, "bot not stopped: which machine leads it cannot be read: etcd unreachable; run the stop there (nothing was sent, nothing is held)", false},
		{"stop of a foreign record, the holds the fleet's", with(commanded(commandStop, present, ownership.Classification{Class: ownership.ClassForeign, Message: "not ours"}), func(l *look) {
			l.cmd.ledElsewhere, l.cmd.leader, l.cmd.sharedHolds = "machine m2 leads it", "m2", true
		}), stepDecline, "bot daemon ownership changed; refusing to signal (not ours)", false},
		{"stop with nothing running", commanded(commandStop, absent, gone(ownership.ClassAbsent)), stepHold, "no running bot daemon", false},
		{"stop, the tracked owner runs on", with(commanded(commandStop, absent, gone(ownership.ClassAbsent)), func(l *look) {
			l.tracked = trackedLook{owner: running1, alive: true}
		}), stepHold, "OwnerWithoutRecord: bot daemon (pid 42) still runs though its record is gone; it exits at its next heartbeat, or end it yourself", false},
		{"stop, the tracked owner is the record's", with(commanded(commandStop, ownership.Record{Present: true, State: running1}, gone(ownership.ClassStopped)), func(l *look) {
			l.tracked = trackedLook{owner: running1, alive: true}
		}), stepHold, "no running bot daemon", false},
		{"restart of an undeclared name, spec invalid", with(commanded(commandRestart, present, healthy), func(l *look) { l.declared, l.cmd.specErrors = false, 2 }), stepDecline,
			"bot is not in the spec; nothing to restart it as (the spec is invalid as read here: 2 error(s); run reconciler validate)", false},
		{"restart, the spec says Stopped", with(commanded(commandRestart, present, healthy), func(l *look) { l.cmd.specStopped, l.hold = true, &Hold{} }), stepDecline,
			"the spec says bot is Stopped; set state: Running to start it", false},
		{"restart, holds unreadable", with(commanded(commandRestart, present, healthy), func(l *look) { l.holdsErr = errors.New("bad json") }), stepDecline,
			"bot not restarted: bad json", false},
		{"restart of a held name", with(commanded(commandRestart, present, healthy), func(l *look) { l.hold = &Hold{Force: true} }), stepDecline,
			"bot is held stopped by reconciler stop; run reconciler start bot", false},
		{"restart of a proved owner", commanded(commandRestart, present, healthy), stepRestartStop, "", true},
	}
	for _, tc := range cases {
		p := decide(tc.look)
		if p.step != tc.step || p.message != tc.message || p.escalate != tc.escalate {
			t.Errorf("%s: decide = %v %q escalate=%v; want %v %q escalate=%v", tc.name, p.step, p.message, p.escalate, tc.step, tc.message, tc.escalate)
		}
	}
}

func TestLedElsewhere(t *testing.T) {
	for _, c := range []struct {
		name         string
		e            *Election
		want, leader string
	}{
		{"one machine", nil, "", ""},
		{"nobody leads", &Election{Self: "a"}, "", ""},
		{"this machine leads", &Election{Leader: "a", Self: "a"}, "", ""},
		{"another leads", &Election{Leader: "b", Self: "a"}, "machine b leads it", "b"},
		{"unreadable", &Election{Self: "a", Error: "etcd unreachable"}, "which machine leads it cannot be read: etcd unreachable", ""},
	} {
		if got, leader := ledElsewhere(c.e), leaderElsewhere(c.e); got != c.want || leader != c.leader {
			t.Errorf("%s: %q, leader %q; want %q, leader %q", c.name, got, leader, c.want, c.leader)
		}
	}
}
