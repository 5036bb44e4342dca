package systemtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/reconcile"
)

// A planned handover costs no IDENTIFY: on a generation roll and on
// `reconciler restart` the old daemon closes its gateway connection
// resumably and hands its session over, and the new one RESUMEs it. A
// reply sent after the old one closed and before the new one's RESUME is
// answered (the fake holds the RESUME) reaches the new daemon through the
// RESUME's replay and lands once, and the two were never connected at
// once.
func TestDiscordHandoverResumes(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	t.Cleanup(func() {
		if t.Failed() {
			e.logDaemonLogs()
		}
	})
	bot := object{name: "discord", provider: "discord", generation: 1, providerExtra: "    authorizedUserIds: [\"" + aliceDiscord + "\"]\n"}
	e.writeSpec(bot)
	e.startLoop()
	e.waitStatus("discord ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	place := e.openSession("discord", "s1")
	stats := func() fakediscord.TokenStats { return e.f.discord.Snapshot().Tokens[discordToken] }
	if st := stats(); st.Identifies != 1 {
		t.Fatalf("stats %+v at the start, want one IDENTIFY", st)
	}
	waitFake := func(what string, cond func(fakediscord.TokenStats) bool) fakediscord.TokenStats {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
		defer cancel()
		sn, err := e.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return cond(s.Tokens[discordToken]) })
		if err != nil {
			t.Fatalf("%s: %v; stats %+v", what, err, sn.Tokens[discordToken])
		}
		return sn.Tokens[discordToken]
	}
	landed := 0
	handover := func(what string, act func()) {
		before := stats()
		pid := e.state("discord").PID
		e.f.discord.HoldResumes()
		done := make(chan struct{})
		go func() {
			defer close(done)
			act()
		}()
		// The old connection is closed before the new owner starts, and
		// the new owner's RESUME waits at the fake: a reply now is sent
		// while neither is connected, and only the RESUME's replay can
		// bring it over the gateway.
		waitFake(what+": the old connection closed and the new one's RESUME held", func(s fakediscord.TokenStats) bool {
			return s.Live == 0 && s.HeldResumes == 1
		})
		e.say("discord", place, aliceDiscord, "sent during the "+what)
		e.f.discord.ReleaseResumes()
		e.waitStatus(what+": a new owner running", func(s *reconcile.Status) bool {
			d, ok := daemonStatus(s, "discord")
			return ok && d.Phase == reconcile.PhaseRunning && d.Converged && d.PID != 0 && d.PID != pid
		})
		<-done
		st := waitFake(what+": the RESUME", func(s fakediscord.TokenStats) bool { return s.Resumes == before.Resumes+1 && s.Live == 1 })
		if st.Identifies != before.Identifies || st.MaxLive != 1 {
			t.Errorf("%s: stats %+v, was %+v: want no new IDENTIFY and never two connected", what, st, before)
		}
		landed++
		got := inboxTexts(t, e.waitInbox("discord", "holds the reply of the "+what, func(m map[string]string) bool { return len(m) >= landed }))
		if _, ok := got["sent during the "+what]; !ok || len(got) != landed {
			t.Errorf("%s: inbox %v, want the reply sent during it, once", what, got)
		}
		// The new daemon also reads the thread's history as the adopted
		// session is RESUMED (what its predecessor read and did not land),
		// which finds the reply too: so the reply is delivered twice, lands
		// once and counts one duplicate. Without the replay (a client that
		// drops the dispatches before RESUMED, a fake that does not replay)
		// the history read alone delivers it, and no duplicate is counted.
		e.waitStatus(what+": the replay and the history read both delivered the reply", func(s *reconcile.Status) bool {
			d, ok := daemonStatus(s, "discord")
			return ok && d.PID != pid && d.Relay != nil && d.Relay.Inbox != nil &&
				d.Relay.Inbox.Landed == 1 && d.Relay.Inbox.Duplicates >= 1
		})
		if _, err := os.Lstat(filepath.Join(e.paths("discord").Dir, discord.HandoverFile)); !os.IsNotExist(err) {
			t.Errorf("%s: the handover file is still there after the RESUME: %v", what, err)
		}
	}
	handover("generation roll", func() {
		bot.generation = 2
		e.writeSpec(bot)
	})
	handover("restart", func() {
		if r := runBinary(t, nil, "restart", "discord", "--agent-dir", e.agentDir); r.code != 0 {
			t.Errorf("restart: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
}
