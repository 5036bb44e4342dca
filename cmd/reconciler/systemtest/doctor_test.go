package systemtest

import (
	"strings"
	"testing"
)

// doctor's exit codes: 1 when a check fails (the refused token's line
// says so and what to do; the other bot is checked all the same), 2 for
// a NAME not in the spec.
func TestDoctorSaysWhatFailsAndExits(t *testing.T) {
	e := newE2E(t)
	e.writeSpec(object{name: "d", provider: "discord", generation: 1}, object{name: "s", provider: "slack", generation: 1})
	e.f.discord.SetTokenRejected(discordToken, true)
	r := runBinary(t, e.env, "--agent-dir", e.agentDir, "doctor", "--linger-dir", t.TempDir())
	if r.code != exitNotDone {
		t.Fatalf("doctor with a refused token: exit %d, want %d\n%s%s", r.code, exitNotDone, r.stdout, r.stderr)
	}
	for _, want := range []string{"d (discord):\n  FAIL  token: Discord refused the bot token (401): reset it", "s (slack):\n  ok    bot token:", "FAIL  lingering: off"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor's report lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, discordToken) {
		t.Error("doctor's output holds the token")
	}
	if r := runBinary(t, e.env, "--agent-dir", e.agentDir, "doctor", "nobody"); r.code != exitInvalid || !strings.Contains(r.stderr, `unknown daemon "nobody"`) {
		t.Errorf("doctor of a name not in the spec: exit %d\n%s", r.code, r.stderr)
	}
}
