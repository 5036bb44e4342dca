package relay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	"gjc.dev/reconciler/pkg/bus"
)

type harness struct {
	t       *testing.T
	render  RenderOptions // zero: verbose, the fake's limit
	settle  time.Duration // zero: 300 ms
	agent   string
	dirs    bus.Dirs
	fake    *fakePoster
	relay   *Relay
	changed chan struct{}
	// fence is the relay's Fence (nil: always owned).
	fence func() error
	// askPosted is the relay's AskPosted (nil: none).
	askPosted func(ctx context.Context, m bus.Message, place, remote string) error
	// finished is the relay's Finished (nil: none).
	finished func(id string)
	// journal is the relay's Journal (nil: the bus's file).
	journal JournalStore
}

func newHarness(t *testing.T, fake *fakePoster) *harness {
	t.Helper()
	agent := t.TempDir()
	dirs, err := bus.Paths(agent, "bot")
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, agent: agent, dirs: dirs, fake: fake, changed: make(chan struct{}, 1)}
}

// start runs a relay over the harness's bus until the test ends.
func (h *harness) start() *Relay {
	h.t.Helper()
	settle := h.settle
	if settle == 0 {
		settle = 300 * time.Millisecond
	}
	r := New(Options{
		Bus: h.dirs, Poster: h.fake,
		Log:        funcr.New(func(prefix, args string) { h.t.Log(prefix, args) }, funcr.Options{Verbosity: 1}),
		Render:     h.renderOptions(),
		AskPosted:  h.askPosted,
		Fence:      h.fence,
		Finished:   h.finished,
		Journal:    h.journal,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, Settle: settle,
		Changed: func() {
			select {
			case h.changed <- struct{}{}:
			default:
			}
		},
	})
	if err := r.Start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	h.relay = r
	h.t.Cleanup(func() { h.stop() })
	return r
}

func (h *harness) renderOptions() RenderOptions {
	if h.render.Limit == 0 {
		return RenderOptions{Verbose: true, Limit: h.fake.PartLimit()}
	}
	return h.render
}

func (h *harness) stop() {
	if h.relay == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.relay.Stop(ctx); err != nil {
		h.t.Errorf("Stop: %v", err)
	}
	h.relay = nil
}

func (h *harness) send(m bus.Message) string {
	h.t.Helper()
	id, err := bus.Write(h.dirs.Outbox, m)
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// waitFor waits, with a deadline, until cond holds, woken by the relay's
// and the fake's change signals (and a slow tick for file moves).
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-h.changed:
		case <-h.fake.changed:
		case <-tick.C:
		case <-deadline:
			h.t.Fatalf("%s: not before the deadline; fake holds %s", what, h.fake)
		}
	}
}

func (h *harness) outboxEmpty() bool {
	names, err := bus.ListOutbox(h.dirs.Outbox)
	return err == nil && len(names) == 0
}

func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestPostsInOrderPerSession(t *testing.T) {
	h := newHarness(t, newFakePoster())
	for _, s := range []string{"a", "b"} {
		h.send(bus.Message{ID: "01-" + s, Session: s, Event: bus.EventOpen, Title: "Session " + s})
		h.send(bus.Message{ID: "02-" + s, Session: s, Text: "one " + s})
		h.send(bus.Message{ID: "03-" + s, Session: s, Text: "two " + s})
	}
	h.start()
	h.waitFor("outbox drained", h.outboxEmpty)
	for _, s := range []string{"a", "b"} {
		th := h.fake.sessionThread(s)
		if th == "" {
			t.Fatalf("no thread for session %s: %s", s, h.fake)
		}
		got := h.fake.texts(th)
		want := []string{"one " + s, "two " + s}
		if !slices.Equal(got, want) {
			t.Errorf("session %s: thread holds %q, want %q", s, got, want)
		}
	}
	if got := len(h.fake.texts("")); got != 2 {
		t.Errorf("%d roots in the channel, want 2", got)
	}
	if got := files(t, h.dirs.Sent); len(got) != 6 {
		t.Errorf("sent/ holds %v, want 6 files", got)
	}
	h.waitFor("nothing pending", func() bool { return h.relay.Health().Pending == 0 })
	if hl := h.relay.Health(); hl.Posted < 6 || hl.LastPostAt.IsZero() {
		t.Errorf("health %+v", hl)
	}
}

// A part whose answer was lost is looked up, not posted again; the next
// one goes on.
func TestLostAnswerIsLookedUpNotReposted(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.send(bus.Message{ID: "01", Session: "s", Text: "first"})
	h.start()
	h.waitFor("first posted", h.outboxEmpty)
	f.mu.Lock()
	f.acceptFail = 1
	f.mu.Unlock()
	h.send(bus.Message{ID: "02", Session: "s", Text: "second"})
	h.send(bus.Message{ID: "03", Session: "s", Text: "third"})
	h.waitFor("all posted", h.outboxEmpty)
	got := h.fake.texts(h.fake.sessionThread("s"))
	if want := []string{"first", "second", "third"}; !slices.Equal(got, want) {
		t.Fatalf("thread holds %q, want %q", got, want)
	}
}

// A restart after a crash between the attempt record and the done record
// resolves the attempt by lookup: accepted at the service, it is not
// posted again; never accepted, it is posted once.
func TestRestartResolvesAttempts(t *testing.T) {
	for _, accepted := range []bool{true, false} {
		t.Run(map[bool]string{true: "accepted", false: "not accepted"}[accepted], func(t *testing.T) {
			f := newFakePoster()
			h := newHarness(t, f)
			h.send(bus.Message{ID: "01", Session: "s", Text: "first"})
			h.start()
			h.waitFor("first posted", h.outboxEmpty)
			h.stop()
			th := f.sessionThread("s")
			// The crash: an attempt durable, the request made or not, no done.
			j, err := bus.OpenJournal(journalPath(h.dirs))
			if err != nil {
				t.Fatal(err)
			}
			rec := bus.Record{Op: bus.OpAttempt, ID: "02", Part: "0", Session: "s", Thread: th, Text: "second", Parts: 1, At: time.Now().UnixMilli()}
			if err := j.Append(context.Background(), rec); err != nil {
				t.Fatal(err)
			}
			_ = j.Close()
			if accepted {
				if _, err := f.Post(context.Background(), Part{Key: rec.Key(), Session: "s", Thread: th, Text: "second"}); err != nil {
					t.Fatal(err)
				}
			}
			h.send(bus.Message{ID: "02", Session: "s", Text: "second"})
			h.send(bus.Message{ID: "03", Session: "s", Text: "third"})
			h.start()
			h.waitFor("all posted", h.outboxEmpty)
			got := f.texts(th)
			if want := []string{"first", "second", "third"}; !slices.Equal(got, want) {
				t.Fatalf("thread holds %q, want %q", got, want)
			}
		})
	}
}

// After a 429 the part is tried again no earlier than retry_after, and
// another session is not held back meanwhile.
func TestRateLimitHonouredPerSession(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.send(bus.Message{ID: "00-a", Session: "a", Text: "warm a"})
	h.send(bus.Message{ID: "00-b", Session: "b", Text: "warm b"})
	h.start()
	h.waitFor("warm-up posted", h.outboxEmpty)
	f.mu.Lock()
	f.rateLimitN, f.retryAfter, f.limitSession = 1, 700*time.Millisecond, "a"
	f.mu.Unlock()
	h.send(bus.Message{ID: "01-a", Session: "a", Text: "limited"})
	h.waitFor("the 429", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.rateLimitN == 0
	})
	h.send(bus.Message{ID: "01-b", Session: "b", Text: "free"})
	h.waitFor("b posted", func() bool { return slices.Contains(f.texts(f.sessionThread("b")), "free") })
	if slices.Contains(f.texts(f.sessionThread("a")), "limited") {
		t.Fatal("a posted before its retry_after (b was expected first)")
	}
	h.waitFor("a posted", h.outboxEmpty)
	f.mu.Lock()
	defer f.mu.Unlock()
	var limitedAt, retriedAt time.Time
	for _, c := range f.posts {
		if c.key == "01-a/0" && c.limited {
			limitedAt = c.at
		} else if c.key == "01-a/0" && !limitedAt.IsZero() {
			retriedAt = c.at
		}
	}
	if d := retriedAt.Sub(limitedAt); d < 700*time.Millisecond {
		t.Fatalf("retried %s after the 429, want no earlier than 700ms", d)
	}
	if h.relay.Health().RateLimitWaits != 1 {
		t.Errorf("rate-limit waits %d, want 1", h.relay.Health().RateLimitWaits)
	}
}

// An attempt answered with a 429 accepted nothing: it is tried again
// after retry_after, not looked up and settled, which would hold the
// session for a whole Settle per 429.
func TestRateLimitedAttemptNeedsNoSettling(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.settle = time.Hour
	f.rateLimitN, f.retryAfter = 3, 20*time.Millisecond
	h.send(bus.Message{ID: "01-a", Session: "a", Text: "after three 429s"})
	h.start()
	h.waitFor("posted after the 429s, well before Settle", h.outboxEmpty)
	if got := f.texts(f.sessionThread("a")); !slices.Equal(got, []string{"after three 429s"}) {
		t.Fatalf("the session holds %q, want the message once", got)
	}
}

func TestRefusedGoesToFailedOthersGoOn(t *testing.T) {
	f := newFakePoster()
	f.refuse = "BAD"
	h := newHarness(t, f)
	h.send(bus.Message{ID: "01", Session: "s", Text: "fine"})
	h.send(bus.Message{ID: "02", Session: "s", Text: "BAD text"})
	h.send(bus.Message{ID: "03", Session: "s", Text: "also fine"})
	if err := os.WriteFile(filepath.Join(h.dirs.Outbox, "04.json"), []byte(`{"id":"04"`), 0o600); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.waitFor("outbox drained", h.outboxEmpty)
	got := f.texts(f.sessionThread("s"))
	if want := []string{"fine", "also fine"}; !slices.Equal(got, want) {
		t.Fatalf("thread holds %q, want %q", got, want)
	}
	if got := files(t, h.dirs.Failed); !slices.Equal(got, []string{"02.json", "04.json"}) {
		t.Fatalf("failed/ holds %v", got)
	}
	data, err := os.ReadFile(filepath.Join(h.dirs.Failed, "02.json"))
	if err != nil || !strings.Contains(string(data), "refused") {
		t.Fatalf("failed/02.json: %s, %v; want the reason", data, err)
	}
	// The count follows the move to failed/, so it is waited for, not read
	// at once when the outbox looks empty.
	h.waitFor("health counts both failures", func() bool { return h.relay.Health().Failed == 2 })
}

// A configuration error pauses the relay with the backlog kept and says
// so; fixed, it recovers on its own.
func TestBlockedThenRecovers(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.send(bus.Message{ID: "01", Session: "s", Text: "before"})
	h.start()
	h.waitFor("first posted", h.outboxEmpty)
	f.mu.Lock()
	f.blocked = &Error{Kind: Blocked, Reason: ReasonRelayBlocked, Code: "not_in_channel", Err: errors.New("not_in_channel")}
	f.mu.Unlock()
	h.send(bus.Message{ID: "02", Session: "s", Text: "during"})
	h.waitFor("blocked", func() bool { b := h.relay.Health().Blocked; return b != nil && b.Reason == ReasonRelayBlocked })
	if hl := h.relay.Health(); hl.Pending != 1 {
		t.Fatalf("pending %d while blocked, want 1 (the backlog kept)", hl.Pending)
	}
	f.mu.Lock()
	f.blocked = nil
	f.mu.Unlock()
	h.waitFor("recovered", func() bool { return h.outboxEmpty() && h.relay.Health().Blocked == nil })
	got := f.texts(f.sessionThread("s"))
	if want := []string{"before", "during"}; !slices.Equal(got, want) {
		t.Fatalf("thread holds %q, want %q", got, want)
	}
}

func TestChannelCheckHoldsEverything(t *testing.T) {
	f := newFakePoster()
	f.channelErr = &Error{Kind: Blocked, Reason: ReasonChannelUnavailable, Code: "10003", Err: errors.New("Unknown Channel")}
	h := newHarness(t, f)
	h.send(bus.Message{ID: "01", Session: "s", Text: "hello"})
	h.start()
	h.waitFor("ChannelUnavailable", func() bool {
		b := h.relay.Health().Blocked
		return b != nil && b.Reason == ReasonChannelUnavailable
	})
	if n := len(f.texts("")); n != 0 {
		t.Fatalf("%d posts while the channel is unavailable", n)
	}
	f.mu.Lock()
	f.channelErr = nil
	f.mu.Unlock()
	h.waitFor("posted once the channel is back", func() bool { return h.outboxEmpty() && h.relay.Health().Blocked == nil })
}

func TestReplacesEditsAndCloseArchives(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.send(bus.Message{ID: "01", Session: "s", Event: bus.EventOpen, Title: "T"})
	h.send(bus.Message{ID: "02", Session: "s", Text: "progress 10%"})
	h.send(bus.Message{ID: "03", Session: "s", Text: "progress 90%", Replaces: "02"})
	h.send(bus.Message{ID: "04", Session: "s", Event: bus.EventClose})
	h.send(bus.Message{ID: "05", Session: "s", Text: "too late"})
	h.start()
	h.waitFor("outbox drained", h.outboxEmpty)
	th := f.sessionThread("s")
	got := f.texts(th)
	if len(got) != 2 || got[0] != "progress 10%" {
		t.Fatalf("thread holds %q, want the first progress line then the closing line", got)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.edits) != 1 {
		t.Fatalf("edits %v, want one", f.edits)
	}
	for _, text := range f.edits {
		if text != "progress 90%" {
			t.Fatalf("edited to %q", text)
		}
	}
	if !f.archived[th] {
		t.Fatal("thread not archived on close")
	}
	if got := files(t, h.dirs.Failed); !slices.Equal(got, []string{"05.json"}) {
		t.Fatalf("failed/ holds %v, want the message after close", got)
	}
}

// A journal that cannot be read whole proves nothing about what was
// posted: the relay posts nothing and says why until it is repaired.
func TestUnreadableJournalBlocksUntilRepaired(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	path := journalPath(h.dirs)
	bad := []byte("{\"op\":\"attempt\"}\n{\"op\":\"done\",\"id\":\"x\"}\n")
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	h.send(bus.Message{ID: "01", Session: "s", Text: "hello"})
	h.start()
	h.waitFor("RelayBlocked", func() bool {
		b := h.relay.Health().Blocked
		return b != nil && b.Reason == ReasonRelayBlocked && strings.Contains(b.Message, "journal")
	})
	if n := len(f.texts("")); n != 0 {
		t.Fatalf("%d posts with an unreadable journal", n)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != string(bad) {
		t.Fatalf("the journal was touched: %q, %v", data, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	h.waitFor("posted once repaired", func() bool { return h.outboxEmpty() && h.relay.Health().Blocked == nil })
}

// The relay is not settled until the channel check answered; a check
// with no answer (the network) settles nothing and blocks nothing.
func TestSettledOnlyOnceTheCheckAnswers(t *testing.T) {
	f := newFakePoster()
	f.channelErr = errors.New("dial tcp: connection refused")
	h := newHarness(t, f)
	h.start()
	h.waitFor("a second check", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.checks >= 2
	})
	if hl := h.relay.Health(); hl.Settled || hl.Blocked != nil {
		t.Fatalf("settled %v, blocked %+v before any answer", hl.Settled, hl.Blocked)
	}
	f.mu.Lock()
	f.channelErr = nil
	f.mu.Unlock()
	h.waitFor("settled", func() bool { return h.relay.Health().Settled })
}

// With redact on, no token-shaped string and no home path reaches the
// service or the journal, even in a text long enough to be split.
func TestRedactionBeforeSplitAndJournal(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.render = RenderOptions{Redact: true, Home: "/home/alice", Verbose: true, Limit: f.PartLimit()}
	secrets := []string{
		"xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx",
		"xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"Bearer abcdefghijklmnopqrstuvwxyz0123456789",
	}
	const home = "/home/alice/src/secret-project"
	text := strings.Repeat("filler words here ", 5) + strings.Join(secrets, " and ") + " " + home + strings.Repeat(" more filler", 8)
	h.send(bus.Message{ID: "01", Session: "s", Title: "leak " + secrets[0], Text: text})
	h.start()
	h.waitFor("posted", h.outboxEmpty)
	journal, err := os.ReadFile(journalPath(h.dirs))
	if err != nil {
		t.Fatal(err)
	}
	posted := f.String()
	if len(f.texts(f.sessionThread("s"))) < 2 {
		t.Fatalf("the text was not split: %s", posted)
	}
	for _, secret := range secrets {
		for _, part := range []string{secret, secret[len(secret)-12:]} {
			if strings.Contains(posted, part) {
				t.Errorf("posted text holds %q", part)
			}
			if strings.Contains(string(journal), part) {
				t.Errorf("the journal holds %q", part)
			}
		}
	}
	if strings.Contains(posted, "/home/alice") || strings.Contains(string(journal), "/home/alice") {
		t.Errorf("the home path reached the service or the journal")
	}
	if !strings.Contains(posted, "~/src/secret-project") {
		t.Errorf("the home path is not shown as ~: %s", posted)
	}
}

// verbosity lean posts actions, errors, open and close; an info message
// goes to sent/ unposted, counted as filtered.
func TestLeanVerbositySkipsInfo(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.render = RenderOptions{Limit: f.PartLimit()}
	h.send(bus.Message{ID: "01", Session: "s", Event: bus.EventOpen, Title: "T"})
	h.send(bus.Message{ID: "02", Session: "s", Text: "chatter"})
	h.send(bus.Message{ID: "03", Session: "s", Text: "ran the tests", Level: bus.LevelAction})
	h.send(bus.Message{ID: "04", Session: "s", Text: "it broke", Level: bus.LevelError})
	h.start()
	h.waitFor("outbox drained", h.outboxEmpty)
	got := f.texts(f.sessionThread("s"))
	if want := []string{"▶ ran the tests", "⚠ it broke"}; !slices.Equal(got, want) {
		t.Fatalf("thread holds %q, want %q", got, want)
	}
	if got := files(t, h.dirs.Sent); len(got) != 4 {
		t.Fatalf("sent/ holds %v, want all 4", got)
	}
	// Left out, and counted: the one word of a message nobody will see.
	if hl := h.relay.Health(); hl.Filtered != 1 {
		t.Errorf("health filtered %d, want the one info message", hl.Filtered)
	}
}
