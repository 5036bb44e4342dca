package main

import (
	"slices"
	"testing"

	"gjc.dev/reconciler/pkg/reconcile"
)

// A failure says why from the record and what keeps running.
func TestAfterFailure(t *testing.T) {
	old := &reconcile.DaemonStatus{Name: "discord", PID: 123, OwnerID: "o1"}
	for _, tc := range []struct {
		what          string
		msg           string
		before, after *reconcile.DaemonStatus
		want          []string
	}{
		{"a stop that did not end the owner", "did not exit", old, &reconcile.DaemonStatus{Name: "discord", PID: 123, OwnerID: "o1"},
			[]string{"the old discord daemon (pid 123) keeps running"}},
		{"a restart refused before any stop (no after)", "refusing", old, nil,
			[]string{"the old discord daemon (pid 123) keeps running"}},
		{"a new daemon that cannot connect", "not healthy within readyTimeout 30s", old,
			&reconcile.DaemonStatus{Name: "discord", PID: 456, OwnerID: "o2", TransportError: "lookup discord.com: no such host"},
			[]string{"discord's transport: lookup discord.com: no such host", "discord daemon (pid 456) keeps running and retrying its connection"}},
		{"the message says the transport already", "not healthy; its transport: dial tcp: refused", nil,
			&reconcile.DaemonStatus{Name: "discord", PID: 456, TransportError: "dial tcp: refused"},
			[]string{"discord daemon (pid 456) keeps running and retrying its connection"}},
		{"nothing runs", "exited", old, &reconcile.DaemonStatus{Name: "discord"}, []string{"no discord daemon runs now"}},
		{"nothing known", "x", nil, nil, nil},
	} {
		if got := afterFailure(tc.msg, tc.before, tc.after); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.what, got, tc.want)
		}
	}
}

func TestOnceFailures(t *testing.T) {
	d := reconcile.DaemonStatus{Name: "discord", Phase: reconcile.PhaseStarting, Reason: "NotReady", Message: "not healthy", PID: 9, TransportError: "refused"}
	p := reconcile.PassResult{
		Status:  &reconcile.Status{Daemons: []reconcile.DaemonStatus{d, {Name: "slack", Converged: true}}},
		Reasons: []string{"spec: SpecInvalid: 1 error(s)", "discord: NotReady: not healthy"},
	}
	want := []string{"not converged: spec: SpecInvalid: 1 error(s)", "not converged: discord: NotReady: not healthy",
		"  discord's transport: refused", "  discord daemon (pid 9) keeps running and retrying its connection"}
	if got := onceFailures(p); !slices.Equal(got, want) {
		t.Errorf("onceFailures =\n%q, want\n%q", got, want)
	}
}
