package discord_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

const (
	token  = "MTIzNDU2Nzg5MDEyMzQ1Njc4.secret-token-xyz"
	parent = "200000000000000001"
	user   = "300000000000000001"
)

const waitLimit = 10 * time.Second

type rig struct {
	f *fakediscord.Server
	p *discord.Poster
}

func newRig(t *testing.T, opts discord.Options, fopts fakediscord.Options) rig {
	t.Helper()
	fopts.Logf = t.Logf
	if fopts.Tokens == nil {
		fopts.Tokens = []string{token}
	}
	if fopts.Channels == nil {
		fopts.Channels = []string{parent}
	}
	f, err := fakediscord.Start(fopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return rig{f: f, p: newPoster(t, f, token, parent, opts)}
}

func newPoster(t *testing.T, f *fakediscord.Server, tok, channel string, opts discord.Options) *discord.Poster {
	t.Helper()
	p, err := discord.NewPoster(&spec.DiscordConfig{BotToken: spec.NewSecret(tok), ParentChannelID: channel, APIURL: f.URL()}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return c
}

func part(key, thread, text string) relay.Part {
	return relay.Part{Key: key, Session: "s1", Thread: thread, Text: text, FirstAttempt: time.Now()}
}

// wantKind checks err's classification, and that no error text ever holds the token.
func wantKind(t *testing.T, err error, kind relay.Kind) *relay.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %s", kind)
	}
	noToken(t, err)
	if got := relay.KindOf(err); got != kind {
		t.Fatalf("kind of %v = %s, want %s", err, got, kind)
	}
	var re *relay.Error
	errors.As(err, &re)
	return re
}

func noToken(t *testing.T, err error) {
	t.Helper()
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(text, token) || strings.Contains(text, "secret-token") {
			t.Fatalf("error text holds the token: %s", text)
		}
	}
}

func (r rig) root(t *testing.T, key, text string) string {
	t.Helper()
	id, err := r.p.Post(ctx(t), part(key, "", text))
	if err != nil {
		t.Fatalf("Post root: %v", err)
	}
	return id
}

func TestPostSendsNonceNoMentionsNoEmbeds(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	id := r.root(t, "m1/0", "hello @everyone <@"+user+">")
	snap := r.f.Snapshot()
	if len(snap.Messages) != 1 {
		t.Fatalf("fake holds %d messages, want 1", len(snap.Messages))
	}
	m := snap.Messages[0]
	if m.ID != id || m.ChannelID != parent || m.Content != "hello @everyone <@"+user+">" || m.AuthorID != fakediscord.BotUserID(token) {
		t.Errorf("stored %+v, posted id %s", m, id)
	}
	if string(m.AllowedMentions) != `{"parse":[]}` {
		t.Errorf("allowed_mentions = %s, want {\"parse\":[]}", m.AllowedMentions)
	}
	if m.Flags != 1<<2 {
		t.Errorf("flags = %d, want SUPPRESS_EMBEDS (4)", m.Flags)
	}
	if m.Nonce == "" || len(m.Nonce) > 25 {
		t.Errorf("nonce = %q, want 1..25 characters", m.Nonce)
	}
}

func TestPostTwiceWithOneKeyIsOneMessage(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	a := r.root(t, "m1/0", "once")
	b := r.root(t, "m1/0", "once")
	c := r.root(t, "m2/0", "once")
	if a != b || a == c {
		t.Errorf("ids %s %s %s: want the first two equal, the third new", a, b, c)
	}
	if n := len(r.f.Snapshot().Messages); n != 2 {
		t.Errorf("fake holds %d messages, want 2", n)
	}
}

func TestThreadEditArchive(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	root := r.root(t, "m1/0", "Session one")
	long := strings.Repeat("é", 150)
	th, err := r.p.StartThread(ctx(t), root, long)
	if err != nil {
		t.Fatalf("StartThread: %v", err)
	}
	again, err := r.p.StartThread(ctx(t), root, long)
	if err != nil || again != th || th != root {
		t.Fatalf("StartThread again = %s, %v; first %s, root %s", again, err, th, root)
	}
	snap := r.f.Snapshot()
	if len(snap.Threads) != 1 || snap.Threads[0].Name != strings.Repeat("é", 100) {
		t.Fatalf("threads %+v: want one named with 100 code points", snap.Threads)
	}

	id, err := r.p.Post(ctx(t), part("m2/0", th, "first"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.p.Edit(ctx(t), relay.EditRequest{Thread: th, RemoteID: id, Text: "first, edited @here"}); err != nil {
		t.Fatalf("Edit: %v", err)
	}
	got := r.f.Snapshot().In(th)
	if len(got) != 1 || got[0].Content != "first, edited @here" || len(got[0].Edits) != 1 || got[0].Edits[0] != "first" ||
		string(got[0].AllowedMentions) != `{"parse":[]}` {
		t.Fatalf("thread holds %+v", got)
	}

	for range 2 {
		if err := r.p.Archive(ctx(t), th); err != nil {
			t.Fatalf("Archive: %v", err)
		}
	}
	if tt, _ := r.f.Snapshot().Thread(th); !tt.Archived || !tt.Locked {
		t.Fatalf("thread %+v: want archived and locked", tt)
	}
	_, err = r.p.Post(ctx(t), part("m3/0", th, "too late"))
	if re := wantKind(t, err, relay.Refused); re.Code != "50083" {
		t.Errorf("code %q, want 50083", re.Code)
	}
}

func TestCheckChannel(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	if err := r.p.CheckChannel(ctx(t)); err != nil {
		t.Fatalf("CheckChannel: %v", err)
	}
	blocked := func(p *discord.Poster, reason, says string) {
		t.Helper()
		re := wantKind(t, p.CheckChannel(ctx(t)), relay.Blocked)
		if re.Reason != reason || !strings.Contains(re.Error(), says) {
			t.Errorf("CheckChannel = %v (reason %s), want %s saying %q", re, re.Reason, reason, says)
		}
	}
	blocked(newPoster(t, r.f, token, "200000000000000999", discord.Options{}), relay.ReasonChannelUnavailable, "10003")

	r.f.SetChannelUnknown(parent, true)
	blocked(r.p, relay.ReasonChannelUnavailable, "200000000000000001")
	r.f.SetChannelUnknown(parent, false)

	th, err := r.p.StartThread(ctx(t), r.root(t, "m1/0", "root"), "s")
	if err != nil {
		t.Fatal(err)
	}
	blocked(newPoster(t, r.f, token, th, discord.Options{}), relay.ReasonChannelUnavailable, "is a thread")
	blocked(newPoster(t, r.f, "another-token", parent, discord.Options{}), relay.ReasonRelayBlocked, "401")
}

func TestErrorsAreClassified(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})

	r.f.RateLimitNext(1, 1500*time.Millisecond)
	_, err := r.p.Post(ctx(t), part("m1/0", "", "limited"))
	if re := wantKind(t, err, relay.RateLimited); re.RetryAfter != 1500*time.Millisecond || re.Global {
		t.Errorf("rate limit %+v: want retry after 1.5s, not global", re)
	}
	if snap := r.f.Snapshot(); len(snap.Messages) != 0 || snap.RateLimited != 1 {
		t.Errorf("after a 429: %d messages, %d 429s; want none stored and no retry", len(snap.Messages), snap.RateLimited)
	}

	_, err = r.p.Post(ctx(t), part("m2/0", "", ""))
	if re := wantKind(t, err, relay.Refused); re.Code != "50006" {
		t.Errorf("empty message: code %q, want 50006", re.Code)
	}
	_, err = r.p.Post(ctx(t), part("m2/0", "", strings.Repeat("x", 2001)))
	if re := wantKind(t, err, relay.Refused); re.Code != "50035" {
		t.Errorf("too long: code %q, want 50035", re.Code)
	}
	_, err = r.p.Post(ctx(t), part("m2/0", "999", "x"))
	if re := wantKind(t, err, relay.Gone); re.Code != "10003" {
		t.Errorf("unknown thread in a reachable channel: %+v, want gone: the session's thread was deleted", re)
	}
	err = r.p.Edit(ctx(t), relay.EditRequest{RemoteID: "12345", Text: "x"})
	if re := wantKind(t, err, relay.Refused); re.Code != "10008" {
		t.Errorf("edit of an unknown message: code %q, want 10008", re.Code)
	}
	_, err = newPoster(t, r.f, "another-token", parent, discord.Options{}).Post(ctx(t), part("m3/0", "", "x"))
	if re := wantKind(t, err, relay.Blocked); re.Reason != relay.ReasonRelayBlocked {
		t.Errorf("bad token: %+v", re)
	}

	// Nobody listens: refused connection.
	r2 := newRig(t, discord.Options{}, fakediscord.Options{})
	r2.f.Close()
	_, err = r2.p.Post(ctx(t), part("m1/0", "", "x"))
	wantKind(t, err, relay.Uncertain)
}

func TestAcceptedThenFailedIsUncertainThenFound(t *testing.T) {
	t.Parallel()
	for _, mode := range []fakediscord.FailMode{fakediscord.FailBadGateway, fakediscord.FailCut} {
		for _, late := range []bool{false, true} {
			t.Run(fmt.Sprintf("mode %d late %v", mode, late), func(t *testing.T) {
				t.Parallel()
				r := newRig(t, discord.Options{}, fakediscord.Options{})
				r.f.AcceptThenFail(1, mode)
				p := part("m1/0", "", "accepted")
				if late { // outside the nonce window: found by content
					p.FirstAttempt = time.Now().Add(-time.Hour)
				}
				_, err := r.p.Post(ctx(t), p)
				wantKind(t, err, relay.Uncertain)
				if snap := r.f.Snapshot(); len(snap.Messages) != 1 || snap.Posts != 1 {
					t.Fatalf("%d messages after %d POSTs; want 1 and 1 (no retry of an accepted post)", len(snap.Messages), snap.Posts)
				}
				id, found, err := r.p.Lookup(ctx(t), p, "")
				if err != nil || !found || id != r.f.Snapshot().Messages[0].ID {
					t.Fatalf("Lookup = %s, %v, %v; want the stored message", id, found, err)
				}
				if n := len(r.f.Snapshot().Messages); n != 1 {
					t.Fatalf("%d messages after the lookup, want 1", n)
				}
			})
		}
	}
}

func TestLookupOutsideTheWindowMatchesContent(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	root := r.root(t, "m0/0", "root")
	th, err := r.p.StartThread(ctx(t), root, "s")
	if err != nil {
		t.Fatal(err)
	}
	old := func(key, text string) relay.Part {
		p := part(key, th, text)
		p.FirstAttempt = time.Now().Add(-10 * time.Minute)
		return p
	}
	done, err := r.p.Post(ctx(t), part("m1/0", th, "same text"))
	if err != nil {
		t.Fatal(err)
	}
	// A human says the same thing, then 150 more lines: the bot's part is on
	// the second page.
	if _, err := r.f.InjectMessage(th, user, "again"); err != nil {
		t.Fatal(err)
	}
	for i := range 150 {
		if _, err := r.f.InjectMessage(th, user, fmt.Sprint("line ", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, found, err := r.p.Lookup(ctx(t), old("m2/0", "again"), done); err != nil || found {
		t.Fatalf("Lookup of a part never posted = %v, %v; want not found (a human's message is not the bot's)", found, err)
	}
	want, err := r.p.Post(ctx(t), part("m2/0", th, "again"))
	if err != nil {
		t.Fatal(err)
	}
	before := r.f.Snapshot().Posts
	if id, found, err := r.p.Lookup(ctx(t), old("m2/0", "again"), done); err != nil || !found || id != want {
		t.Fatalf("Lookup = %s, %v, %v; want %s", id, found, err, want)
	}
	// From the start of the thread (no part done yet) the first match wins.
	if id, found, err := r.p.Lookup(ctx(t), old("m1/0", "same text"), ""); err != nil || !found || id != done {
		t.Fatalf("Lookup from the start = %s, %v, %v; want %s", id, found, err, done)
	}
	if after := r.f.Snapshot().Posts; after != before {
		t.Errorf("a lookup outside the nonce window posted %d times", after-before)
	}
}

func TestLookupInsideTheWindowRepostsWithTheNonce(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	// Never accepted (held, then the client gave up): the lookup posts it, once.
	r.f.HoldPosts()
	reqCtx, cancel := context.WithCancel(ctx(t))
	errc := make(chan error, 1)
	go func() {
		_, err := r.p.Post(reqCtx, part("m1/0", "", "held"))
		errc <- err
	}()
	if _, err := r.f.WaitFor(ctx(t), func(s fakediscord.Snapshot) bool { return s.Held == 1 }); err != nil {
		t.Fatal(err)
	}
	cancel()
	wantKind(t, <-errc, relay.Uncertain)
	if _, err := r.f.WaitFor(ctx(t), func(s fakediscord.Snapshot) bool { return s.Held == 0 }); err != nil {
		t.Fatal(err)
	}
	r.f.Release()
	if n := len(r.f.Snapshot().Messages); n != 0 {
		t.Fatalf("a held request whose client left stored %d messages", n)
	}
	id, found, err := r.p.Lookup(ctx(t), part("m1/0", "", "held"), "")
	if err != nil || !found {
		t.Fatalf("Lookup = %v, %v", found, err)
	}
	id2, found, err := r.p.Lookup(ctx(t), part("m1/0", "", "held"), "")
	if err != nil || !found || id2 != id {
		t.Fatalf("second Lookup = %s, %v, %v; want %s", id2, found, err, id)
	}
	if n := len(r.f.Snapshot().Messages); n != 1 {
		t.Fatalf("fake holds %d messages, want 1", n)
	}
}

// A steady stream at the route's limit is paced by the bucket headers: no 429.
func TestSteadyStreamAtTheLimitSeesNo429(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	r.f.SetRouteLimit(3, 300*time.Millisecond)
	for i := range 10 {
		if _, err := r.p.Post(ctx(t), part(fmt.Sprintf("m%d/0", i), "", fmt.Sprint("msg ", i))); err != nil {
			t.Fatalf("post %d: %v", i, err)
		}
	}
	if snap := r.f.Snapshot(); snap.RateLimited != 0 || len(snap.Messages) != 10 {
		t.Fatalf("%d 429s, %d messages; want none and 10", snap.RateLimited, len(snap.Messages))
	}
}

// The wait for a bucket is cancellable: discordgo's own would sleep through.
func TestBucketWaitHonoursTheContext(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	r.f.SetRouteLimit(1, time.Hour)
	r.root(t, "m1/0", "one")
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := r.p.Post(short, part("m2/0", "", "two"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Post = %v, want the context's deadline", err)
	}
	if snap := r.f.Snapshot(); snap.RateLimited != 0 || snap.Posts != 1 {
		t.Fatalf("%d 429s, %d POSTs; want the second never sent", snap.RateLimited, snap.Posts)
	}
}

// A timeout after the service stored the message is uncertain, and the
// lookup finds the message.
func TestSlowAnswerTimesOutUncertain(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{Timeout: 200 * time.Millisecond}, fakediscord.Options{})
	r.f.SetSlow(time.Minute)
	p := part("m1/0", "", "slow")
	_, err := r.p.Post(ctx(t), p)
	wantKind(t, err, relay.Uncertain)
	r.f.SetSlow(0)
	snap := r.f.Snapshot()
	if len(snap.Messages) != 1 {
		t.Fatalf("fake holds %d messages, want the one stored before the slow answer", len(snap.Messages))
	}
	if id, found, err := r.p.Lookup(ctx(t), p, ""); err != nil || !found || id != snap.Messages[0].ID {
		t.Fatalf("Lookup = %s, %v, %v", id, found, err)
	}
}

// Sessions post concurrently through one Poster, each thread its own route:
// every part arrives once, in order per thread, with no 429.
func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	r.f.SetRouteLimit(2, 100*time.Millisecond)
	threads := make([]string, 4)
	for i := range threads {
		th, err := r.p.StartThread(ctx(t), r.root(t, fmt.Sprintf("root%d/0", i), "root"), "s")
		if err != nil {
			t.Fatal(err)
		}
		threads[i] = th
	}
	errc := make(chan error, len(threads))
	for i, th := range threads {
		go func() {
			for j := range 5 {
				if _, err := r.p.Post(ctx(t), part(fmt.Sprintf("s%d-m%d/0", i, j), th, fmt.Sprint("part ", j))); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	for range threads {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	snap := r.f.Snapshot()
	for _, th := range threads {
		got := snap.In(th)
		for j, m := range got {
			if m.Content != fmt.Sprint("part ", j) {
				t.Fatalf("thread %s holds %+v: want parts 0..4 in order", th, got)
			}
		}
		if len(got) != 5 {
			t.Fatalf("thread %s holds %d messages, want 5", th, len(got))
		}
	}
	if snap.RateLimited != 0 {
		t.Errorf("%d 429s", snap.RateLimited)
	}
}

// BenchmarkSteadyStream posts back to back into one channel limited to 5
// requests a second (the figure DESIGN asks for) and reports the share of
// the budget used.
func BenchmarkSteadyStream(b *testing.B) {
	const n, per, posts = 5, time.Second, 16
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{token}, Channels: []string{parent}})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	p, err := discord.NewPoster(&spec.DiscordConfig{BotToken: spec.NewSecret(token), ParentChannelID: parent, APIURL: f.URL()}, discord.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f.SetRouteLimit(n, per)
	var total time.Duration
	for i := range b.N {
		start := time.Now()
		for j := range posts {
			if _, err := p.Post(context.Background(), relay.Part{Key: fmt.Sprintf("b%d-%d/0", i, j), Text: "x"}); err != nil {
				b.Fatal(err)
			}
		}
		total += time.Since(start)
	}
	// posts-1 after the first window's start need (posts-1)/n further windows.
	ideal := time.Duration((posts-1)/n) * per * time.Duration(b.N)
	b.ReportMetric(100*float64(ideal)/float64(total), "budget-%")
	b.ReportMetric(float64(f.Snapshot().RateLimited), "429s")
}

// A lookup that runs out of pages has not proved the part absent: an error,
// never "not found" (which would re-post a part that may be further on).
func TestLookupPastItsPagesIsAnError(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{LookupPages: 1}, fakediscord.Options{})
	for i := range 100 {
		if _, err := r.f.InjectMessage(parent, user, fmt.Sprint("line ", i)); err != nil {
			t.Fatal(err)
		}
	}
	want := r.root(t, "m1/0", "late part")
	p := part("m1/0", "", "late part")
	p.FirstAttempt = time.Now().Add(-time.Hour)
	id, found, err := r.p.Lookup(ctx(t), p, "")
	if err == nil || found {
		t.Fatalf("Lookup = %s, %v, %v; want an error (the part, %s, is past the one page allowed)", id, found, err, want)
	}
	noToken(t, err)
}
