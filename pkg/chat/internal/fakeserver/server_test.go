package fakeserver

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// fake is the smallest fake built on the skeleton: one counter, an API
// route that posts (taking the faults as a fake does) and a socket route.
type fake struct {
	mu    sync.Mutex
	core  *Server
	posts int
	socks []*Socket
	drops int
}

func start(t *testing.T) *fake {
	t.Helper()
	f := &fake{}
	core, err := Listen(Config{Name: "fake", Mu: &f.mu, Logf: t.Logf, Drop: f.drop})
	if err != nil {
		t.Fatal(err)
	}
	f.core = core
	m := http.NewServeMux()
	m.HandleFunc("POST /api/post", f.post)
	m.HandleFunc("GET /socket", f.socket)
	core.Serve(m)
	t.Cleanup(f.close)
	return f
}

func (f *fake) close() {
	f.core.Close(func() []*Socket { return f.socks })
}

func (f *fake) drop() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.socks {
		s.Abort()
	}
	f.drops++
	return len(f.socks)
}

func (f *fake) post(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	if after, hit := f.core.TakeRateLimitLocked(); hit {
		f.mu.Unlock()
		WriteJSON(w, http.StatusTooManyRequests, map[string]any{"retry_after": after.Seconds()})
		return
	}
	f.posts++
	f.core.NotifyLocked()
	mode, fail := f.core.TakeAcceptFailLocked()
	f.mu.Unlock()
	if fail {
		f.core.Fail(w, mode)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

func (f *fake) socket(w http.ResponseWriter, r *http.Request) {
	s, err := f.core.Upgrade(w, r, Pinger{})
	if err != nil {
		return
	}
	f.mu.Lock()
	f.socks = append(f.socks, s)
	s.Send([]byte(`"hello"`))
	s.SendClose(4000, "bye")
	f.mu.Unlock()
	for {
		if _, _, err := s.WS.ReadMessage(); err != nil {
			break
		}
	}
	s.Finish()
}

func (f *fake) waitPosts(t *testing.T, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := NewView(f.core, func() int { return f.posts }).WaitFor(ctx, func(p int) bool { return p >= n }); err != nil {
		t.Fatal(err)
	}
}

func post(t *testing.T, f *fake) (int, error) {
	t.Helper()
	resp, err := http.Post(f.core.URL()+"/api/post", "application/json", strings.NewReader("{}"))
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

func TestFaultsAnswerAsTheyAreTaken(t *testing.T) {
	f := start(t)
	faults := f.core.Faults()
	faults.RateLimitNext(1, time.Second)
	faults.AcceptThenFail(2, Fail502)
	if status, err := post(t, f); err != nil || status != http.StatusTooManyRequests {
		t.Fatalf("first post: %d, %v; want the injected 429", status, err)
	}
	if status, err := post(t, f); err != nil || status != http.StatusBadGateway {
		t.Fatalf("second post: %d, %v; want 502 after it was handled", status, err)
	}
	faults.AcceptThenFail(1, FailCut)
	if _, err := post(t, f); err == nil {
		t.Fatal("third post answered; want the connection cut")
	}
	if status, err := post(t, f); err != nil || status != http.StatusOK {
		t.Fatalf("fourth post: %d, %v; want the faults spent", status, err)
	}
	f.waitPosts(t, 3)
	var got []int
	for _, r := range f.core.Requests() {
		if r.Method != http.MethodPost || r.Path != "/api/post" || r.At.IsZero() {
			t.Errorf("logged %+v, want the posts", r)
		}
		got = append(got, r.Status)
	}
	if want := []int{http.StatusTooManyRequests, http.StatusBadGateway, 0, http.StatusOK}; !slices.Equal(got, want) {
		t.Errorf("logged statuses %v, want %v", got, want)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := f.core.ObservedLocked().RateLimited; n != 1 {
		t.Errorf("rate limited %d, want 1", n)
	}
}

func TestSlowDelaysTheAnswerNotTheWork(t *testing.T) {
	f := start(t)
	f.core.Faults().SetSlow(time.Minute)
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		_, _ = post(t, f) // cut short by the Close below
	}()
	f.waitPosts(t, 1)
	select {
	case <-answered:
		t.Fatal("answered before the delay")
	default:
	}
	f.close() // ends the delay: nothing may be left waiting
	<-answered
}

func TestSocketSendsThenCloses(t *testing.T) {
	f := start(t)
	url := "ws" + strings.TrimPrefix(f.core.URL(), "http") + "/socket"
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, b, err := ws.ReadMessage(); err != nil || string(b) != `"hello"` {
		t.Fatalf("first frame %q, %v", b, err)
	}
	_, _, err = ws.ReadMessage()
	if ce, ok := errors.AsType[*websocket.CloseError](err); !ok || ce.Code != 4000 {
		t.Fatalf("then %v, want close 4000", err)
	}

	if got := f.core.Requests(); len(got) != 1 || got[0].Status != http.StatusSwitchingProtocols {
		t.Errorf("logged %+v, want the websocket's 101", got)
	}
	f.core.Faults().SetUnavailable(true)
	if _, resp, err := websocket.DefaultDialer.Dial(url, nil); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("during the outage: %v, want 503", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.drops != 1 {
		t.Errorf("the outage dropped sockets %d times, want once", f.drops)
	}
}

func TestCloseEndsWaitsAndRefuses(t *testing.T) {
	f := start(t)
	f.close()
	f.close() // twice is fine
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := NewView(f.core, func() int { return f.posts }).WaitFor(ctx, func(int) bool { return false }); !errors.Is(err, ErrClosed) {
		t.Errorf("WaitFor after Close = %v, want ErrClosed", err)
	}
	if _, err := post(t, f); err == nil {
		t.Error("a request after Close was answered")
	}
}

func TestSequenceIncreasesStrictly(t *testing.T) {
	var q Sequence
	for _, c := range []struct{ now, want int64 }{{5, 5}, {5, 6}, {3, 7}, {10, 10}} {
		if got := q.Next(c.now); got != c.want {
			t.Errorf("Next(%d) = %d, want %d", c.now, got, c.want)
		}
	}
}

func TestAccepts(t *testing.T) {
	for _, c := range []struct {
		listed        []string
		token, prefix string
		want          bool
	}{
		{nil, "xoxb-1", "xoxb-", true},
		{nil, "xapp-1", "xoxb-", false},
		{nil, "anything", "", true},
		{[]string{"a", "b"}, "b", "", true},
		{[]string{"a", "b"}, "c", "", false},
		{[]string{"xoxb-1"}, "xoxb-2", "xoxb-", false},
	} {
		if got := Accepts(c.listed, c.token, c.prefix); got != c.want {
			t.Errorf("Accepts(%v, %q, %q) = %v, want %v", c.listed, c.token, c.prefix, got, c.want)
		}
	}
}

func TestHoldWaitsForReleaseClientOrClose(t *testing.T) {
	f := start(t)
	h := NewHold()
	gone, leave := context.WithCancel(context.Background())
	leave()
	if f.core.WaitAt(gone, h) {
		t.Error("a request whose client left went on")
	}
	<-h.Arrived()
	h.Release()
	h.Release() // twice is fine
	if !f.core.WaitAt(context.Background(), h) {
		t.Error("a released request was dropped")
	}
	f.close()
	if f.core.WaitAt(context.Background(), NewHold()) {
		t.Error("a request held at Close went on")
	}
}
