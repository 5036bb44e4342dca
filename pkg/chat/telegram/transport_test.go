package telegram

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/inbound"
)

// inbox lands every event it is handed, once per id, and can be told to
// fail.
type inbox struct {
	mu     sync.Mutex
	landed map[string]int
	fail   bool
	ch     chan string
}

func newInbox() *inbox { return &inbox{landed: map[string]int{}, ch: make(chan string, 100)} }

func (b *inbox) Receive(_ context.Context, ev inbound.Event) (inbound.Outcome, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail {
		return 0, errors.New("disk full")
	}
	b.landed[ev.ID]++
	b.ch <- ev.ID
	return inbound.Landed, nil
}

// health collects a transport's reports.
type health struct {
	mu   sync.Mutex
	last chat.Health
	ch   chan chat.Health
}

func (h *health) report(v chat.Health) {
	h.mu.Lock()
	h.last = v
	h.mu.Unlock()
	select {
	case h.ch <- v:
	default:
	}
}

func (h *health) waitFor(t *testing.T, ok func(chat.Health) bool) chat.Health {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case v := <-h.ch:
			if ok(v) {
				return v
			}
		case <-deadline:
			t.Fatalf("no such health report; last %+v", h.last)
		}
	}
}

// run starts a transport on f; stop ends it and returns Run's error.
func run(t *testing.T, f *faketelegram.Server, in Receiver, dir string) (*health, func() error) {
	t.Helper()
	tr := NewTransport(fakeConfig(f), TransportOptions{Inbound: in, StateDir: dir, PollTimeout: time.Second, MaxBackoff: 200 * time.Millisecond})
	h := &health{ch: make(chan chat.Health, 100)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tr.Run(ctx, h.report) }()
	var once sync.Once
	var err error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				err = errors.New("Run did not return")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return h, stop
}

var alice = faketelegram.User{ID: 42, FirstName: "Alice"}

// A reply lands once; once its offset is saved, a restarted transport
// is not sent it again; one written while the daemon was down arrives
// when it is back.
func TestRepliesLandOnceAcrossRestarts(t *testing.T) {
	f := startFake(t, false)
	dir := t.TempDir()
	in := newInbox()
	h, stop := run(t, f, in, dir)
	h.waitFor(t, func(v chat.Health) bool { return v.Healthy })
	m, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: "yes"})
	if err != nil {
		t.Fatal(err)
	}
	waitLanded(t, in, m.ID)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	down, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: "while you were away"})
	if err != nil {
		t.Fatal(err)
	}
	run(t, f, in, dir)
	waitLanded(t, in, down.ID)
	in.mu.Lock()
	defer in.mu.Unlock()
	for id, n := range in.landed {
		if n != 1 {
			t.Errorf("message %s landed %d times", id, n)
		}
	}
}

// A reply that could not land is not confirmed: the service sends it
// again, and it lands once the inbox takes it.
func TestAReplyThatDidNotLandComesAgain(t *testing.T) {
	f := startFake(t, false)
	in := newInbox()
	in.fail = true
	h, _ := run(t, f, in, t.TempDir())
	h.waitFor(t, func(v chat.Health) bool { return v.Healthy })
	m, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: "yes"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxFor(t)
	if _, err := f.WaitFor(ctx, func(sn faketelegram.Snapshot) bool {
		return len(sn.Updates) > 0 && sn.Updates[len(sn.Updates)-1].Deliveries >= 2
	}); err != nil {
		t.Fatalf("the update was not sent again: %v", err)
	}
	in.mu.Lock()
	in.fail = false
	in.mu.Unlock()
	waitLanded(t, in, m.ID)
}

func waitLanded(t *testing.T, in *inbox, id int64) {
	t.Helper()
	want := strconvI(id)
	deadline := time.After(20 * time.Second)
	for {
		select {
		case got := <-in.ch:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("message %s never landed", want)
		}
	}
}

// A second consumer of the token is TokenInUse, a webhook WebhookSet
// naming deleteWebhook, which the daemon never calls; both never
// healthy until the cause is gone.
func TestConflictsAreDegraded(t *testing.T) {
	t.Run("TokenInUse", func(t *testing.T) {
		f := startFake(t, false)
		h1, _ := run(t, f, newInbox(), "")
		h1.waitFor(t, func(v chat.Health) bool { return v.Healthy })
		h2, _ := run(t, f, newInbox(), "")
		var seen chat.Health
		select {
		case seen = <-waitEither(t, h1, h2, daemonproto.ReasonTokenInUse):
		case <-time.After(20 * time.Second):
			t.Fatal("no TokenInUse report")
		}
		if seen.Healthy {
			t.Fatal("TokenInUse reported healthy")
		}
	})
	t.Run("WebhookSet", func(t *testing.T) {
		f := startFake(t, false)
		f.SetWebhook("https://example.com/hook")
		h, _ := run(t, f, newInbox(), "")
		v := h.waitFor(t, func(v chat.Health) bool { return v.Reason == daemonproto.ReasonWebhookSet })
		if !strings.Contains(v.Err, "deleteWebhook") {
			t.Errorf("WebhookSet does not name deleteWebhook: %s", v.Err)
		}
		f.SetWebhook("")
		h.waitFor(t, func(v chat.Health) bool { return v.Healthy })
		if n := f.Snapshot().DeleteWebhook; n != 0 {
			t.Errorf("the daemon called deleteWebhook %d times", n)
		}
	})
}

// waitEither forwards the first report of h1 or h2 with reason.
func waitEither(t *testing.T, h1, h2 *health, reason string) <-chan chat.Health {
	out := make(chan chat.Health, 1)
	for _, h := range []*health{h1, h2} {
		go func() {
			for v := range h.ch {
				if v.Reason == reason {
					select {
					case out <- v:
					default:
					}
					return
				}
			}
		}()
	}
	return out
}

// A revoked token is terminal: InvalidCredentials.
func TestRevokedTokenIsTerminal(t *testing.T) {
	f := startFake(t, false)
	f.SetTokenRevoked(true)
	tr := NewTransport(fakeConfig(f), TransportOptions{PollTimeout: time.Second})
	ctx := ctxFor(t)
	err := tr.Run(ctx, func(chat.Health) {})
	var te *chat.TerminalError
	if !errors.As(err, &te) || te.Reason != daemonproto.ReasonInvalidCredentials {
		t.Fatalf("Run = %v, want terminal InvalidCredentials", err)
	}
	if strings.Contains(te.Message, f.Token()) {
		t.Fatal("the refusal quotes the token")
	}
}
