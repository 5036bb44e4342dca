package relay_test

// The figures of the relay's issue, measured through the whole engine
// (relay.New with the real Discord and Slack posters) against the local
// fakes on 127.0.0.1. hack/bench runs them; timing is reported, never
// asserted.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/chat/telegram"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

const (
	benchToken   = "bench-token"
	benchParent  = "100000000000000001"
	benchSlackTK = "xoxb-bench"
	benchSlackCh = "C0BENCH01"
)

// benchRig is one relay over a private bus, posting to one fake.
type benchRig struct {
	b     *testing.B
	dirs  bus.Dirs
	r     *relay.Relay
	fd    *fakediscord.Server
	fs    *fakeslack.Server
	ft    *faketelegram.Server
	p     relay.Poster
	mk    relay.Markup
	ready chan struct{}
}

func newBenchRig(b *testing.B, provider string) *benchRig {
	b.Helper()
	dirs, err := bus.Paths(b.TempDir(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		b.Fatal(err)
	}
	g := &benchRig{b: b, dirs: dirs, ready: make(chan struct{}, 1)}
	switch provider {
	case "discord":
		g.fd, err = fakediscord.Start(fakediscord.Options{Tokens: []string{benchToken}, Channels: []string{benchParent}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(g.fd.Close)
		g.p, err = discord.NewPoster(&spec.DiscordConfig{BotToken: spec.NewSecret(benchToken), ParentChannelID: benchParent, APIURL: g.fd.URL()}, discord.Options{})
		g.mk = relay.Markdown
	case "slack":
		g.fs, err = fakeslack.Start(fakeslack.Options{BotTokens: []string{benchSlackTK}, Channels: []string{benchSlackCh}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(g.fs.Close)
		g.p, err = slack.NewPoster(&spec.SlackConfig{BotToken: spec.NewSecret(benchSlackTK), ChannelID: benchSlackCh, APIURL: g.fs.URL()}, slack.Options{})
		g.mk = relay.Mrkdwn
	case "telegram":
		g.ft, err = faketelegram.Start(faketelegram.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(g.ft.Close)
		g.p, err = telegram.NewPoster(&spec.TelegramConfig{BotToken: spec.NewSecret(faketelegram.DefaultToken),
			ChatID: strconv.FormatInt(faketelegram.DefaultChatID, 10), APIURL: g.ft.URL(), PostsPerMinute: spec.MaxPostsPerMinute}, telegram.Options{})
		g.mk = relay.Plain
	default:
		b.Fatalf("unknown provider %q", provider)
	}
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// start runs the relay until the benchmark ends; it returns once the
// channel check passed.
func (g *benchRig) start() {
	g.b.Helper()
	g.startNoWait()
	g.waitSettled()
}

func (g *benchRig) startNoWait() {
	g.b.Helper()
	g.r = relay.New(relay.Options{
		Bus: g.dirs, Poster: g.p, Log: logr.Discard(),
		Render: relay.RenderOptions{Verbose: true, Limit: g.p.PartLimit(), Markup: g.mk},
		Changed: func() {
			select {
			case g.ready <- struct{}{}:
			default:
			}
		},
	})
	if err := g.r.Start(context.Background()); err != nil {
		g.b.Fatal(err)
	}
	r := g.r
	g.b.Cleanup(func() {
		if g.fd != nil {
			g.fd.Release() // a held post would hold the stop back
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := r.Stop(ctx); err != nil {
			g.b.Errorf("Stop: %v", err)
		}
	})
}

func (g *benchRig) waitSettled() {
	g.b.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if h := g.r.Health(); h.Settled {
			if h.Blocked != nil {
				g.b.Fatalf("relay blocked: %+v", h.Blocked)
			}
			return
		}
		select {
		case <-g.ready:
		case <-deadline:
			g.b.Fatal("relay not settled within 30 s")
		}
	}
}

func (g *benchRig) write(m bus.Message) {
	g.b.Helper()
	if _, err := bus.Write(g.dirs.Outbox, m); err != nil {
		g.b.Fatal(err)
	}
}

// stored waits, on the fake's own change signal, until it holds n
// messages whose text contains marker, and returns when each was created.
func (g *benchRig) stored(marker string, n int) []time.Time {
	g.b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var at []time.Time
	var err error
	if g.fd != nil {
		_, err = g.fd.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
			at = at[:0]
			for _, m := range s.Messages {
				if strings.Contains(m.Content, marker) {
					at = append(at, m.Time)
				}
			}
			return len(at) >= n
		})
	} else if g.ft != nil {
		_, err = g.ft.WaitFor(ctx, func(s faketelegram.Snapshot) bool {
			at = at[:0]
			for _, m := range s.Messages {
				if strings.Contains(m.Text, marker) {
					at = append(at, m.Date)
				}
			}
			return len(at) >= n
		})
	} else {
		_, err = g.fs.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
			at = at[:0]
			for _, m := range s.Messages {
				if strings.Contains(m.Text, marker) {
					at = append(at, time.Time{})
				}
			}
			return len(at) >= n
		})
	}
	if err != nil {
		g.b.Fatalf("waiting for %d messages with %q at the fake: %v", n, marker, err)
	}
	return at
}

// openSession posts a session's first message (its root and thread) and
// waits for it, so that what follows measures posts only.
func (g *benchRig) openSession(session string) {
	g.b.Helper()
	marker := "open-" + session
	g.write(bus.Message{Session: session, Text: marker})
	g.stored(marker, 1)
}

func (g *benchRig) rateLimited() int {
	switch {
	case g.fd != nil:
		return g.fd.Snapshot().RateLimited
	case g.ft != nil:
		return g.ft.Snapshot().RateLimited
	}
	return g.fs.Snapshot().RateLimited
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkRenameToAccepted: from bus.Write (the rename into outbox/) to
// the message stored at the fake, one message at a time into an open
// session. Goal: p50 under 10 ms, p99 under 50 ms.
func BenchmarkRenameToAccepted(b *testing.B) {
	for _, provider := range []string{"discord", "slack", "telegram"} {
		b.Run(provider, func(b *testing.B) {
			g := newBenchRig(b, provider)
			g.start()
			g.openSession("s")
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				marker := fmt.Sprintf("latency %d", i)
				t0 := time.Now()
				g.write(bus.Message{Session: "s", Text: marker})
				g.stored(marker, 1)
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			b.ReportMetric(ms(percentile(lat, 0.50)), "p50-ms")
			b.ReportMetric(ms(percentile(lat, 0.99)), "p99-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkRateBudget: a steady stream of messages to one session against
// Discord's route limit of 5 requests a second. budget-% is the share of
// the limit used over the stream (from the first post to the last, which
// a perfect client sends (posts-1)/5 windows apart); 429s are those the
// fake served during the stream.
func BenchmarkRateBudget(b *testing.B) {
	const n, per, posts = 5, time.Second, 26
	g := newBenchRig(b, "discord")
	g.start()
	g.openSession("s")
	g.fd.SetRouteLimit(n, per)
	before := g.rateLimited()
	var ideal, took time.Duration
	b.ResetTimer()
	for i := range b.N {
		took += g.stream(fmt.Sprintf("stream %d ", i), posts)
		ideal += time.Duration((posts-1)/n) * per
	}
	b.StopTimer()
	b.ReportMetric(100*float64(ideal)/float64(took), "budget-%")
	b.ReportMetric(float64(g.rateLimited()-before), "429s")
	b.ReportMetric(0, "ns/op")
}

// stream writes n messages marked marker into session s at once, and
// returns the time from the first stored at the fake to the last.
func (g *benchRig) stream(marker string, n int) time.Duration {
	for j := range n {
		g.write(bus.Message{Session: "s", Text: fmt.Sprint(marker, j)})
	}
	at := g.stored(marker, n)
	return at[len(at)-1].Sub(at[0])
}

// BenchmarkSyncsPerMessage: many sessions posting at once; the journal's
// fsyncs divided by the messages posted (each message is an attempt and a
// done record, group-committed across sessions). Goal: at most 2.
func BenchmarkSyncsPerMessage(b *testing.B) {
	const sessions, each = 20, 10
	for _, provider := range []string{"discord", "slack"} {
		b.Run(provider, func(b *testing.B) {
			g := newBenchRig(b, provider)
			g.start()
			for s := range sessions {
				g.openSession(fmt.Sprint("s", s))
			}
			before := g.r.JournalStats()
			b.ResetTimer()
			for i := range b.N {
				marker := fmt.Sprintf("burst %d ", i)
				var wg sync.WaitGroup
				for s := range sessions {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for j := range each {
							if _, err := bus.Write(g.dirs.Outbox, bus.Message{Session: fmt.Sprint("s", s), Text: fmt.Sprint(marker, s, " ", j)}); err != nil {
								b.Error(err)
							}
						}
					}()
				}
				wg.Wait()
				g.stored(marker, sessions*each)
			}
			b.StopTimer()
			after := g.r.JournalStats()
			msgs := float64(b.N * sessions * each)
			b.ReportMetric(float64(after.Syncs-before.Syncs)/msgs, "syncs/msg")
			b.ReportMetric(float64(after.Records-before.Records)/msgs, "records/msg")
		})
	}
}

// sentFiles writes n message files into dir, as the relay leaves them in
// sent/ (or finds them in outbox/), with ids prefix-0000000...; the
// content is one real message file, its id replaced.
func messageFiles(b *testing.B, dir, prefix string, n, sessions int, text string) []string {
	b.Helper()
	scratch := b.TempDir()
	if err := os.Chmod(scratch, 0o700); err != nil {
		b.Fatal(err)
	}
	const tmplID = "TEMPLATEID"
	if _, err := bus.Write(scratch, bus.Message{ID: tmplID, Session: "SESSIONID", Text: text}); err != nil {
		b.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join(scratch, tmplID+".json"))
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("%s%08d", prefix, i)
		data := strings.Replace(string(tmpl), tmplID, ids[i], 1)
		data = strings.Replace(data, "SESSIONID", fmt.Sprint("s", i%sessions), 1)
		if err := os.WriteFile(filepath.Join(dir, ids[i]+".json"), []byte(data), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return ids
}

// journalOf writes a journal of one attempt and one done record per id.
func journalOf(b *testing.B, path string, ids []string) {
	b.Helper()
	j, err := bus.OpenJournal(path)
	if err != nil {
		b.Fatal(err)
	}
	const batch = 1000
	now := time.Now().UnixMilli()
	recs := make([]bus.Record, 0, 2*batch)
	for i, id := range ids {
		recs = append(recs,
			bus.Record{Op: bus.OpAttempt, ID: id, Part: "0", Session: fmt.Sprint("s", i%100), Thread: "200000000000000001", Text: "a posted message of a few words", Parts: 1, At: now},
			bus.Record{Op: bus.OpDone, ID: id, Part: "0", Session: fmt.Sprint("s", i%100), Thread: "200000000000000001", Remote: fmt.Sprint(300000000000000000 + i), At: now})
		if len(recs) == cap(recs) || i == len(ids)-1 {
			if err := j.Append(context.Background(), recs...); err != nil {
				b.Fatal(err)
			}
			recs = recs[:0]
		}
	}
	if err := j.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStartup: from relay.Start to the first new message accepted at
// the fake, with a journal of `records` attempt+done pairs. steady: every
// message of the journal is still in sent/ (kept 24 h), so the journal
// is only replayed; compacting: none is (pruned long ago), so the start
// rewrites the journal first. Goal: under 1 s for 100,000.
func BenchmarkStartup(b *testing.B) {
	for _, records := range []int{10000, 100000} {
		for _, mode := range []string{"steady", "compacting"} {
			b.Run(fmt.Sprintf("%s/records=%d", mode, records), func(b *testing.B) {
				g := newBenchRig(b, "discord")
				var ids []string
				if mode == "steady" {
					ids = messageFiles(b, g.dirs.Sent, "01SENT", records, 100, "a posted message of a few words")
				} else {
					ids = make([]string, records)
					for i := range ids {
						ids[i] = fmt.Sprintf("01GONE%08d", i)
					}
				}
				golden := filepath.Join(b.TempDir(), "journal")
				journalOf(b, golden, ids)
				data, err := os.ReadFile(golden)
				if err != nil {
					b.Fatal(err)
				}
				var total []time.Duration
				b.ResetTimer()
				for i := range b.N {
					b.StopTimer()
					if err := os.WriteFile(g.dirs.JournalPath(), data, 0o600); err != nil {
						b.Fatal(err)
					}
					marker := fmt.Sprintf("first after start %d", i)
					g.write(bus.Message{Session: "s0", Text: marker})
					b.StartTimer()
					t0 := time.Now()
					g.startNoWait()
					g.stored(marker, 1)
					total = append(total, time.Since(t0))
					b.StopTimer()
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					if err := g.r.Stop(ctx); err != nil {
						b.Fatal(err)
					}
					cancel()
					b.StartTimer()
				}
				b.StopTimer()
				b.ReportMetric(ms(percentile(total, 0.5)), "start-ms")
				if mode == "compacting" {
					fi, err := os.Stat(g.dirs.JournalPath())
					if err == nil && fi.Size() >= int64(len(data)) {
						b.Errorf("journal of %d bytes not compacted (was %d)", fi.Size(), len(data))
					}
				}
			})
		}
	}
}

// BenchmarkBacklogMemory: a backlog of `backlog` outbox files in 10
// sessions while the service holds every post (one message in flight per
// session); the heap in use after the scan queued them all, per queued
// message. The same figure for short and long texts means the relay keeps
// names, not texts.
func BenchmarkBacklogMemory(b *testing.B) {
	for _, backlog := range []int{10000, 100000} {
		for _, size := range []int{100, 2000} {
			b.Run(fmt.Sprintf("backlog=%d/text=%dB", backlog, size), func(b *testing.B) {
				var perMsg []float64
				for range b.N {
					b.StopTimer()
					g := newBenchRig(b, "discord")
					messageFiles(b, g.dirs.Outbox, "01BACK", backlog, 10, strings.Repeat("x", size))
					g.fd.HoldPosts()
					base := heapInUse()
					b.StartTimer()
					g.start()
					g.waitPending(backlog)
					b.StopTimer()
					perMsg = append(perMsg, float64(heapInUse()-base)/float64(backlog))
					runtime.KeepAlive(g.r)
				}
				slices.Sort(perMsg)
				b.ReportMetric(perMsg[len(perMsg)/2], "B/queued-msg")
			})
		}
	}
}

func (g *benchRig) waitPending(n int) {
	g.b.Helper()
	deadline := time.After(5 * time.Minute)
	for g.r.Health().Pending < n {
		select {
		case <-g.ready:
		case <-deadline:
			g.b.Fatalf("%d pending, want %d", g.r.Health().Pending, n)
		}
	}
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
