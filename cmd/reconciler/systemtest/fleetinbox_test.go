package systemtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// A reply an authorized user writes in a session's thread lands in the
// inbox of every machine of a fleet, once, byte for byte the owner's
// file, and `reconciler inbox` shows it on each, the machines that do not
// run the bot included (DESIGN 10; issue 36).
func TestFleetReplyReachesEveryMachinesInbox(t *testing.T) {
	fl := startFleet(t, 3, inboundBots()[0])
	waitDiscord(t, fl.f, "one live session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
	ownerID, other := fl.frNonOwner("discord")

	// `reconciler inbox -f` on every machine, started before the reply
	// exists.
	outs := map[string]*logBuffer{}
	for _, m := range fl.machines {
		outs[m.id] = followInbox(t, m)
	}

	// The session is opened from a machine that does not run the bot:
	// its outbox goes to the owner through etcd, the reply comes back the
	// same way.
	place := other.e.openSession("discord", "s1")
	other.e.say("discord", place, aliceDiscord, "a reply for every machine")
	const line = "  s1  " + aliceDiscord + "  a reply for every machine\n"
	for _, m := range fl.machines {
		outs[m.id].waitText(t, line)
	}

	want := fl.machine(ownerID).e.inbox("discord")
	if len(want) != 1 {
		t.Fatalf("the owner's inbox = %v, want the reply once", want)
	}
	for _, m := range fl.machines {
		if got := m.e.inbox("discord"); !same(got, want) {
			t.Errorf("%s's inbox = %v, want the owner's (%s) %v", m.id, got, ownerID, want)
		}
		if n := strings.Count(outs[m.id].String(), "\n"); n != 1 {
			t.Errorf("inbox -f on %s printed %d lines, want the reply once:\n%s", m.id, n, outs[m.id].String())
		}
	}
}

// followInbox runs `reconciler inbox discord -f` on m until the test ends
// and returns what it prints.
func followInbox(t *testing.T, m *fleetMachine) *logBuffer {
	t.Helper()
	cmd := exec.Command(binary, "inbox", "discord", "-f", "--agent-dir", m.e.agentDir)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	out, errs := newLogBuffer(), newLogBuffer()
	cmd.Stdout, cmd.Stderr = out, errs
	must(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("inbox -f on %s said:\n%s", m.id, errs.String())
		}
	})
	return out
}

func same(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
