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
// reply sent while neither was connected lands once, and the two were
// never connected at once.
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
		done := make(chan struct{})
		go func() {
			defer close(done)
			act()
		}()
		// The old connection is closed before the new owner starts; a
		// reply now is sent while neither is connected (spawning the new
		// daemon takes far longer than this injection).
		waitFake(what+": the old connection closed", func(s fakediscord.TokenStats) bool { return s.Live == 0 })
		e.say("discord", place, aliceDiscord, "sent during the "+what)
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
