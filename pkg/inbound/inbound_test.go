package inbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
)

// fakeService is an in-memory chat service: per place, messages in id
// order.
type fakeService struct {
	mu       sync.Mutex
	msgs     map[string][]Event
	reacted  map[string]int
	failFrom map[string]string // place -> id whose History read fails
	reactErr error
	calls    int

	served    map[string][]byte // by URL
	fetches   []string          // the URLs Fetch was called for, in order
	fetchFail error
	overrun   bool
	fetchGate chan struct{}
}

func newFakeService() *fakeService {
	return &fakeService{msgs: map[string][]Event{}, reacted: map[string]int{}, failFrom: map[string]string{}, served: map[string][]byte{}}
}

func (f *fakeService) add(ev Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs[ev.Place] = append(f.msgs[ev.Place], ev)
}

func (f *fakeService) History(ctx context.Context, place, after string, since time.Time, fn func(Event) error) error {
	f.mu.Lock()
	f.calls++
	msgs := append([]Event(nil), f.msgs[place]...)
	fail := f.failFrom[place]
	f.mu.Unlock()
	for _, ev := range msgs {
		if after != "" && compareIDs(ev.ID, after) <= 0 {
			continue
		}
		if ev.Time.Before(since) {
			continue
		}
		if ev.ID == fail {
			return errors.New("history read cut")
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	return nil
}

// Fetch serves f.served by URL, from its one file host, as a service's
// Fetch does: another host is refused without a request; more than max
// is ErrTooLarge after max+1 bytes. fetchFail, while set, fails each
// fetch (transiently); overrun writes past max without saying so, as a
// broken adapter could; fetchGate, when set, holds each fetch until it
// is closed.
func (f *fakeService) Fetch(ctx context.Context, rf RemoteFile, max int64, w io.Writer) (int64, error) {
	f.mu.Lock()
	content, ok := f.served[rf.URL]
	fail, overrun, gate := f.fetchFail, f.overrun, f.fetchGate
	f.fetches = append(f.fetches, rf.URL)
	f.mu.Unlock()
	if !strings.HasPrefix(rf.URL, fileHost) {
		return 0, &PermanentError{Err: fmt.Errorf("%s is not on the service's file host", rf.URL)}
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	if fail != nil {
		return 0, fail
	}
	if !ok {
		return 0, &PermanentError{Err: errors.New("404 file gone")}
	}
	if int64(len(content)) > max && !overrun {
		n, err := w.Write(content[:max+1])
		if err != nil {
			return int64(n), err
		}
		return int64(n), ErrTooLarge
	}
	n, err := w.Write(content)
	return int64(n), err
}

const fileHost = "https://files.test/"

func (f *fakeService) React(ctx context.Context, place, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reactErr != nil {
		return f.reactErr
	}
	f.reacted[id]++
	return nil
}

func (f *fakeService) reactions(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reacted[id]
}

type fakeSessions struct{ places map[string]string } // place -> session

func (s fakeSessions) Loaded() <-chan struct{} { c := make(chan struct{}); close(c); return c }
func (s fakeSessions) SessionAt(p string) (string, bool) {
	v, ok := s.places[p]
	return v, ok
}
func (s fakeSessions) OpenPlaces() []Place {
	var out []Place
	for p, sess := range s.places {
		out = append(out, Place{Session: sess, ID: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

var t0 = time.Now().Add(-time.Hour).Truncate(time.Millisecond)

func ev(id, place, user string) Event {
	var n int64
	_, _ = fmt.Sscan(id, &n)
	return Event{ID: id, Place: place, User: user, Text: "reply " + id, Time: t0.Add(time.Duration(n) * time.Millisecond)}
}

type rig struct {
	t    *testing.T
	d    bus.Dirs
	svc  *fakeService
	in   *Inbound
	keep func(session, file string) (bool, error) // Options.Keep
	// sessions, when set, is Options.Sessions (default: T1 and T2 open)
	sessions Sessions
	maxFile  int64                 // Options.MaxFileBytes
	step     func(step, id string) // Options.Step
}

func newRig(t *testing.T) *rig {
	d, err := bus.Paths(t.TempDir(), "bot")
	if err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, d: d, svc: newFakeService()}
}

func (r *rig) start() *Inbound {
	r.t.Helper()
	sessions := r.sessions
	if sessions == nil {
		sessions = fakeSessions{places: map[string]string{"T1": "s1", "T2": "s2"}}
	}
	in := New(Options{
		Bus: r.d, Service: r.svc, Sessions: sessions,
		Authorized: []string{"alice"}, Log: testr.New(r.t), MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		Keep: r.keep, MaxFileBytes: r.maxFile, Step: r.step,
	})
	if err := in.Start(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	r.in = in
	r.t.Cleanup(func() { _ = in.Stop(context.Background()) })
	return in
}

func (r *rig) stop() {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.in.Stop(ctx); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) receive(e Event) Outcome {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	o, err := r.in.Receive(ctx, e)
	if err != nil {
		r.t.Fatalf("Receive(%s): %v", e.ID, err)
	}
	return o
}

// files returns every visible inbox file, by session/name, with its bytes.
func (r *rig) files() map[string]string {
	out := map[string]string{}
	sessions, _ := os.ReadDir(r.d.Inbox)
	for _, s := range sessions {
		entries, _ := os.ReadDir(filepath.Join(r.d.Inbox, s.Name()))
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || e.IsDir() {
				continue // a stage, no file yet; a reply's files
			}
			b, err := os.ReadFile(filepath.Join(r.d.Inbox, s.Name(), e.Name()))
			if err != nil {
				r.t.Fatal(err)
			}
			out[s.Name()+"/"+e.Name()] = string(b)
		}
	}
	return out
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

func TestDecide(t *testing.T) {
	auth := map[string]bool{"alice": true}
	at := func(p string) (string, bool) {
		if p == "T1" {
			return "s1", true
		}
		if p == "T9" {
			return "..", true
		}
		return "", false
	}
	base := ev("100", "T1", "alice")
	for _, c := range []struct {
		name    string
		mod     func(*Event)
		session string
		reason  Reason
	}{
		{"authorized in a session thread", func(*Event) {}, "s1", ""},
		{"another user", func(e *Event) { e.User = "mallory" }, "", Unauthorized},
		{"a bot, even an authorized id", func(e *Event) { e.Bot = true }, "", FromBot},
		{"this daemon's own post", func(e *Event) { e.Bot, e.Self = true, true }, "", FromSelf},
		{"this daemon's own edit", func(e *Event) { e.Bot, e.Self, e.Kind = true, true, Edit }, "", FromSelf},
		{"an edit", func(e *Event) { e.Kind = Edit }, "", EditIgnored},
		{"a system message", func(e *Event) { e.Kind = Other }, "", OtherKind},
		{"another thread", func(e *Event) { e.Place = "T2" }, "", NotSession},
		{"no thread", func(e *Event) { e.Place = "" }, "", NotSession},
		{"unauthorized outside a session", func(e *Event) { e.User = "mallory"; e.Place = "T2" }, "", NotSession},
		{"a hidden session name", func(e *Event) { e.Place = "T9" }, "", Unusable},
		{"an id the inbox cannot name", func(e *Event) { e.ID = "../x" }, "", Unusable},
		{"a user id with a slash", func(e *Event) { e.User = "alice"; e.Text = string([]byte{0xff}) }, "", Unusable},
		{"no time", func(e *Event) { e.Time = time.Time{} }, "", Unusable},
	} {
		e := base
		c.mod(&e)
		s, r := decide(e, auth, at)
		if s != c.session || r != c.reason {
			t.Errorf("%s: decide = %q, %q; want %q, %q", c.name, s, r, c.session, c.reason)
		}
	}
}

func TestLandsOnceAndIgnoresTheRest(t *testing.T) {
	r := newRig(t)
	r.start()
	if o := r.receive(ev("100", "T1", "alice")); o != Landed {
		t.Fatalf("first delivery: %v", o)
	}
	if o := r.receive(ev("100", "T1", "alice")); o != Duplicate {
		t.Fatalf("second delivery: %v", o)
	}
	for _, e := range []Event{ev("101", "T1", "mallory"), ev("102", "T3", "alice"), {ID: "103", Place: "T1", User: "alice", Bot: true, Time: t0}, {ID: "104", Place: "T1", User: "alice", Kind: Edit, Time: t0}} {
		if o := r.receive(e); o != Ignored {
			t.Errorf("%s: %v, want ignored", e.ID, o)
		}
	}
	files := r.files()
	if len(files) != 1 {
		t.Fatalf("inbox holds %v", files)
	}
	name, _ := bus.InboxFileName(bus.InboxMessage{ID: "100", TS: bus.InboxTime(ev("100", "", "").Time)})
	want, _ := bus.EncodeInbox(bus.InboxMessage{ID: "100", Session: "s1", User: "alice", Text: "reply 100", TS: bus.InboxTime(ev("100", "", "").Time)})
	if files["s1/"+name] != string(want) {
		t.Fatalf("inbox = %v, want s1/%s = %s", files, name, want)
	}
	h := r.in.Health()
	if h.Landed != 1 || h.Duplicates != 1 || h.IgnoredTotal() != 4 || h.Ignored[Unauthorized] != 1 {
		t.Errorf("health = %+v", h)
	}
	waitUntil(t, "the reaction", func() bool { return r.svc.reactions("100") == 1 && r.in.Health().Unreacted == 0 })
}

func TestSeenAcrossARestartAndFilesUntouched(t *testing.T) {
	r := newRig(t)
	r.start()
	r.receive(ev("100", "T1", "alice"))
	r.receive(ev("200", "T2", "alice"))
	waitUntil(t, "the reactions", func() bool { return r.in.Health().Unreacted == 0 })
	before := r.files()
	r.stop()
	// The reader took one file meanwhile: it must not come back.
	for k := range before {
		if filepath.Dir(k) == "s2" {
			if err := os.Remove(filepath.Join(r.d.Inbox, k)); err != nil {
				t.Fatal(err)
			}
			delete(before, k)
		}
	}
	r.start()
	if o := r.receive(ev("100", "T1", "alice")); o != Duplicate {
		t.Fatalf("after a restart: %v", o)
	}
	if o := r.receive(ev("200", "T2", "alice")); o != Duplicate {
		t.Fatalf("a taken message after a restart: %v", o)
	}
	after := r.files()
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("inbox changed across a restart:\nbefore %v\nafter  %v", before, after)
	}
	if n := r.svc.reactions("100"); n != 1 {
		t.Errorf("reacted %d times", n)
	}
}

// A crash after the record but before the rename: the next start
// publishes the stage. A crash before the record: it removes it, and the
// message lands when delivered again.
func TestRecoveryCompletesOrRemovesStages(t *testing.T) {
	r := newRig(t)
	if err := bus.EnsureDirs(r.d); err != nil {
		t.Fatal(err)
	}
	recorded := bus.InboxMessage{ID: "100", Session: "s1", User: "alice", Text: "kept", TS: bus.InboxTime(t0)}
	unrecorded := bus.InboxMessage{ID: "200", Session: "s2", User: "alice", Text: "again", TS: bus.InboxTime(t0)}
	f1, err := bus.StageInbox(r.d, recorded)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bus.StageInbox(r.d, unrecorded); err != nil {
		t.Fatal(err)
	}
	j, err := bus.OpenInboundJournal(r.d.InboundJournalPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(context.Background(), bus.InboundRecord{Op: bus.OpLanded, ID: "100", Place: "T1", Session: "s1", File: f1, At: t0.UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	r.start()
	waitUntil(t, "the recovered landing", func() bool { return len(r.files()) == 1 })
	staged, _ := bus.ListStagedInbox(r.d)
	if len(staged) != 0 {
		t.Fatalf("stages left: %v", staged)
	}
	if _, ok := r.files()["s1/"+f1]; !ok {
		t.Fatalf("inbox = %v", r.files())
	}
	waitUntil(t, "the owed reaction", func() bool { return r.svc.reactions("100") == 1 })
	e := ev("200", "T2", "alice")
	e.Time = t0
	if o := r.receive(e); o != Landed {
		t.Fatalf("the unrecorded message delivered again: %v", o)
	}
}

func TestHistoryLandsMissedMessagesOnceAndMovesTheCursor(t *testing.T) {
	r := newRig(t)
	for i := 1; i <= 1000; i++ {
		r.svc.add(ev(fmt.Sprint(1000+i), "T1", "alice"))
	}
	r.svc.add(ev("3000", "T2", "mallory"))
	r.start()
	waitUntil(t, "the backlog", func() bool { return r.in.Health().Landed == 1000 })
	r.in.Connected()
	r.svc.add(ev("2500", "T1", "alice"))
	waitUntil(t, "the message after the cursor", func() bool { return r.in.Health().Landed == 1001 })
	if h := r.in.Health(); h.Duplicates != 0 {
		t.Errorf("a second read went over old messages: %+v", h)
	}
	if n := len(r.files()); n != 1001 {
		t.Fatalf("%d files", n)
	}
}

func TestHistoryCursorStopsAtAFailure(t *testing.T) {
	r := newRig(t)
	for i := 1; i <= 10; i++ {
		r.svc.add(ev(fmt.Sprint(100+i), "T1", "alice"))
	}
	r.svc.mu.Lock()
	r.svc.failFrom["T1"] = "106"
	r.svc.mu.Unlock()
	r.start()
	waitUntil(t, "the first five", func() bool { return r.in.Health().Landed == 5 })
	r.svc.mu.Lock()
	delete(r.svc.failFrom, "T1")
	r.svc.mu.Unlock()
	waitUntil(t, "the rest, on the retry", func() bool { return r.in.Health().Landed == 10 })
	if h := r.in.Health(); h.Duplicates != 0 {
		t.Errorf("the retry read again from the start: %+v", h)
	}
}

func TestNobodyAuthorizedReadsNoHistory(t *testing.T) {
	r := newRig(t)
	r.svc.add(ev("100", "T1", "alice"))
	in := New(Options{Bus: r.d, Service: r.svc, Sessions: fakeSessions{places: map[string]string{"T1": "s1"}}, Log: testr.New(t)})
	if err := in.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Stop(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if o, err := in.Receive(ctx, ev("100", "T1", "alice")); err != nil || o != Ignored {
		t.Fatalf("Receive = %v, %v", o, err)
	}
	r.svc.mu.Lock()
	calls := r.svc.calls
	r.svc.mu.Unlock()
	if calls != 0 {
		t.Errorf("history read %d times with nobody authorized", calls)
	}
}

func TestFenceRefusalLandsNothing(t *testing.T) {
	r := newRig(t)
	lost := errors.New("ownership lost")
	in := New(Options{Bus: r.d, Service: r.svc, Sessions: fakeSessions{places: map[string]string{"T1": "s1"}}, Authorized: []string{"alice"},
		Log: testr.New(t), Fence: func() error { return lost }})
	if err := in.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Stop(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := in.Receive(ctx, ev("100", "T1", "alice")); !errors.Is(err, lost) {
		t.Fatalf("Receive = %v, want the fence's error", err)
	}
	r.rigFilesEmpty(t)
}

func (r *rig) rigFilesEmpty(t *testing.T) {
	if f := r.files(); len(f) != 0 {
		t.Fatalf("inbox = %v", f)
	}
}
