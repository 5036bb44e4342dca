package providertest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/daemonproto"
)

// Wait bounds every wait of the suite.
const Wait = 20 * time.Second

// TransportFake is a provider's fake as the transport's checks drive it.
type TransportFake interface {
	// Transport returns a transport connecting to the fake with
	// credentials it takes.
	Transport(t *testing.T) chat.Transport
	// DropConnections cuts every live connection.
	DropConnections()
	// RejectTokens makes the fake refuse the credentials Transport uses.
	RejectTokens()
	// MaxLive waits until none of the transport's connections is live,
	// and returns the most that ever were at once.
	MaxLive(ctx context.Context) (int, error)
}

// Transport checks a provider's transport against its fake: healthy
// once connected, unhealthy with a reason when the connection drops,
// healthy again on its own, never two connections at once, nil once
// cancelled; and refused credentials are terminal, InvalidCredentials.
func Transport(t *testing.T, newFake func(t *testing.T) TransportFake) {
	t.Run("HealthAndReconnect", func(t *testing.T) {
		f := newFake(t)
		h, cancel, run := StartTransport(t, f.Transport(t))
		h.WaitFor(t, true)
		f.DropConnections()
		if v := h.WaitFor(t, false); v.Err == "" {
			t.Error("unhealthy report without a reason")
		}
		h.WaitFor(t, true)
		cancel()
		if err := run.Wait(t); err != nil {
			t.Fatalf("Run after cancel: %v", err)
		}
		ctx, stop := context.WithTimeout(context.Background(), Wait)
		defer stop()
		if n, err := f.MaxLive(ctx); err != nil || n != 1 {
			t.Errorf("connections: at most %d at once (%v), want never two and none left", n, err)
		}
	})
	t.Run("RejectedToken", func(t *testing.T) {
		f := newFake(t)
		f.RejectTokens()
		_, _, run := StartTransport(t, f.Transport(t))
		var te *chat.TerminalError
		if err := run.Wait(t); !errors.As(err, &te) || te.Reason != daemonproto.ReasonInvalidCredentials {
			t.Fatalf("Run = %v, want a terminal InvalidCredentials", err)
		}
	})
}

// HealthLog collects a transport's reports so a test can wait for the
// next one. It keeps only changes, as the daemon does.
type HealthLog struct {
	c    chan chat.Health
	last *chat.Health
}

func (h *HealthLog) report(v chat.Health) {
	if h.last != nil && *h.last == v {
		return
	}
	h.last = &v
	h.c <- v
}

// WaitFor returns the next report whose Healthy is healthy.
func (h *HealthLog) WaitFor(t *testing.T, healthy bool) chat.Health {
	t.Helper()
	return h.Next(t, fmt.Sprintf("healthy=%v", healthy), func(v chat.Health) bool { return v.Healthy == healthy })
}

// Next returns the next report that match accepts (what names it).
func (h *HealthLog) Next(t *testing.T, what string, match func(chat.Health) bool) chat.Health {
	t.Helper()
	deadline := time.After(Wait)
	for {
		select {
		case v := <-h.c:
			if match(v) {
				return v
			}
		case <-deadline:
			t.Fatalf("no report with %s within %v", what, Wait)
		}
	}
}

// TransportRun is a transport's Run in progress.
type TransportRun struct {
	done chan struct{}
	err  error
}

// StartTransport runs tr until the returned cancel (or the test's end).
func StartTransport(t *testing.T, tr chat.Transport) (*HealthLog, context.CancelFunc, *TransportRun) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &HealthLog{c: make(chan chat.Health, 64)}
	r := &TransportRun{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = tr.Run(ctx, h.report)
	}()
	t.Cleanup(func() {
		cancel()
		r.Wait(t)
	})
	return h, cancel, r
}

// Wait waits for Run to return and returns its error.
func (r *TransportRun) Wait(t *testing.T) error {
	t.Helper()
	select {
	case <-r.done:
		return r.err
	case <-time.After(Wait):
		t.Fatalf("transport did not return within %v", Wait)
		return nil
	}
}
