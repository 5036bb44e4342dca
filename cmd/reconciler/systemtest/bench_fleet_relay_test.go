package systemtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// fbBurst is how many messages one op of BenchmarkFleetForwardedPosts
// writes, over fbSessions sessions.
const (
	fbBurst    = 200
	fbSessions = 4
)

// BenchmarkFleetForwardedPosts is posts per second through a machine
// that does not own the name: a burst of fbBurst messages written in its
// outbox, forwarded into etcd by its loop and posted by the owner's relay
// on another machine, timed from the first write to the last post seen at
// the fake. "local" is the same burst on one machine with files, for the
// cost of the fleet's path.
func BenchmarkFleetForwardedPosts(b *testing.B) {
	bot := object{name: "bot", provider: "discord", generation: 1}
	b.Run("fleet-forwarded", func(b *testing.B) {
		fl := startFleet(b, 2, bot)
		waitDiscord(b, fl.f, "one live session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
		// A live session means a daemon holds the name: its lock came first.
		h := fl.holder("bot")
		if h == nil {
			b.Fatal("a session is live and nobody holds bot")
		}
		sender := fl.machines[0]
		if sender.id == h.Machine {
			sender = fl.machines[1]
		}
		fbRun(b, fl.f, sender.e.agentDir)
	})
	b.Run("local", func(b *testing.B) {
		e := newE2E(b)
		e.writeSpec(bot)
		e.startLoop()
		waitDiscord(b, e.f, "one live session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
		fbRun(b, e.f, e.agentDir)
	})
}

// fbRun writes b.N bursts into agentDir's outbox of bot and reports the
// posts per second the fake saw.
func fbRun(b *testing.B, f *fakes, agentDir string) {
	d, err := bus.Paths(agentDir, "bot")
	if err != nil {
		b.Fatal(err)
	}
	fbWaitOutbox(b, f, d.Outbox)
	b.ResetTimer()
	var took time.Duration
	for i := range b.N {
		prefix := fmt.Sprintf("burst %d message ", i)
		start := time.Now()
		for k := range fbBurst {
			// action: a lean daemon (the default) posts it.
			m := bus.Message{ID: fmt.Sprintf("b%03d-%04d", i, k), Session: fmt.Sprintf("bench-%d-%d", i, k%fbSessions), Level: bus.LevelAction, Text: fmt.Sprintf("%s%d", prefix, k)}
			if _, err := bus.Write(d.Outbox, m); err != nil {
				b.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		_, err := f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
			n := 0
			for _, m := range s.Messages {
				if m.Bot && strings.Contains(m.Content, prefix) { // after the action mark
					n++
				}
			}
			return n >= fbBurst
		})
		cancel()
		if err != nil {
			b.Fatalf("burst %d not posted whole: %v", i, err)
		}
		took += time.Since(start)
	}
	b.StopTimer()
	b.ReportMetric(float64(fbBurst*b.N)/took.Seconds(), "posts/s")
	b.ReportMetric(0, "ns/op")
}

// fbWaitOutbox waits until the outbox exists (the daemon, or in a fleet
// the forwarder, makes it), woken by the fake's changes or each second.
func fbWaitOutbox(b *testing.B, f *fakes, dir string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*e2eDeadline)
	defer cancel()
	for {
		if _, err := os.Stat(dir); err == nil {
			return
		}
		wctx, wcancel := context.WithTimeout(ctx, time.Second)
		_, _ = f.discord.WaitFor(wctx, func(fakediscord.Snapshot) bool { return false })
		wcancel()
		if ctx.Err() != nil {
			b.Fatalf("outbox %s never made", dir)
		}
	}
}
