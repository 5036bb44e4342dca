package systemtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/reconcile"
)

// inboundWorld is one bot under the loop with session s1 open and one
// reply landed, so its thread is known to the relay.
type inboundWorld struct {
	e          *e2e
	name       string
	place      string
	sessionDir string
	loop       *loopProc
}

func newInboundWorld(b *testing.B, provider string) *inboundWorld {
	b.Helper()
	e := newE2E(b)
	bot := inboundBots()[0]
	if provider == "slack" {
		bot = inboundBots()[1]
	}
	e.writeSpec(bot)
	w := &inboundWorld{e: e, name: provider, loop: e.startLoop()}
	e.waitStatus(provider+" ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	w.place = e.openSession(provider, "s1")
	d, err := bus.Paths(e.agentDir, provider)
	if err != nil {
		b.Fatal(err)
	}
	w.sessionDir = filepath.Join(d.Inbox, "s1")
	w.say("warming up")
	e.waitInbox(provider, "holds the first reply", func(m map[string]string) bool { return len(m) == 1 })
	return w
}

// say injects one of alice's replies at the fake and returns its id.
func (w *inboundWorld) say(text string) string {
	w.e.t.Helper()
	if w.name == "discord" {
		m, err := w.e.f.discord.InjectMessage(w.place, aliceDiscord, text)
		if err != nil {
			w.e.t.Fatal(err)
		}
		return m.ID
	}
	m, err := w.e.f.slack.InjectMessage("C1", aliceSlack, text, w.place)
	if err != nil {
		w.e.t.Fatal(err)
	}
	return m.TS
}

// published counts the published files of the session's inbox.
func (w *inboundWorld) published() int {
	ents, _ := os.ReadDir(w.sessionDir)
	n := 0
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

// waitPublished waits, on the session dir's events, until it holds n files.
func (w *inboundWorld) waitPublished(n int, what string) {
	w.e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	waitDirEvents(w.e.t, ctx, w.sessionDir, func() bool { return w.published() >= n }, what)
}

func percentile(samples []time.Duration, p float64) time.Duration {
	s := slices.Clone(samples)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// Message accepted at the fake (the inject returns once the fake has
// stored it and queued its dispatch) -> its inbox file published: the
// file and its journal record are fsynced before the rename, the
// directory just after it, so the figure leaves out that last fsync.
// Real daemon, real gateway / Socket Mode, one reply at a time.
func BenchmarkInboundAcceptToInbox(b *testing.B) {
	for _, provider := range []string{"discord", "slack"} {
		b.Run(provider, func(b *testing.B) {
			w := newInboundWorld(b, provider)
			var samples []time.Duration
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				w.say(fmt.Sprintf("reply %d", i))
				w.waitPublished(i+2, "the reply's file")
				samples = append(samples, time.Since(start))
			}
			b.ReportMetric(float64(percentile(samples, 0.50).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(percentile(samples, 0.99).Microseconds())/1000, "p99-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// backfillReplies is how many replies are sent while the daemon is down.
const backfillReplies = 1000

// 1,000 replies sent while the daemon was down -> all in the inbox. The
// loop is stopped and the daemon killed; the replies go to the fake; then
// the loop starts again, spawns a daemon, which connects and reads the
// thread's history (Discord pages of 100 with after=; Slack
// conversations.replies with oldest=, and the events Socket Mode held for
// the app). The time runs from the loop's start: spawn and connect
// included. The fakes set no rate limits here: the figure is the
// daemon's own pace.
func BenchmarkInboundBackfill(b *testing.B) {
	for _, provider := range []string{"discord", "slack"} {
		b.Run(provider, func(b *testing.B) {
			var samples []time.Duration
			for b.Loop() {
				b.StopTimer()
				w := newInboundWorld(b, provider)
				w.loop.stop()
				w.e.killDaemons()
				for i := range backfillReplies {
					w.say(fmt.Sprintf("missed %d", i))
				}
				b.StartTimer()
				start := time.Now()
				w.loop = w.e.startLoop()
				w.waitPublished(backfillReplies+1, "the backfill")
				samples = append(samples, time.Since(start))
			}
			b.ReportMetric(float64(median(samples).Microseconds())/1000, "ms-median")
			b.ReportMetric(0, "ns/op")
		})
	}
}
