package daemonproto

import (
	"slices"
	"testing"
	"time"
)

func TestArgsSpellTheClaimAndGeneration(t *testing.T) {
	c := Claim{AgentDir: "/home/u/.gjc/agent", Name: "discord", OwnerID: "42-abc"}
	got := Args(c, 7, HeartbeatArgs(300*time.Millisecond)...)
	want := []string{"daemon", "--agent-dir", "/home/u/.gjc/agent", "--name", "discord", "--owner-id", "42-abc",
		"--generation", "7", "--heartbeat-interval", "300ms"}
	if !slices.Equal(got, want) {
		t.Errorf("Args = %q, want %q", got, want)
	}
}

func TestHeartbeatArgsLeaveTheDefaultToTheDaemon(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		if got := HeartbeatArgs(d); got != nil {
			t.Errorf("HeartbeatArgs(%v) = %q, want none", d, got)
		}
	}
}
