package chat

import (
	"context"
	"fmt"
	"sync"
)

// transportComponent runs a Transport as a daemon's Component, and is the
// health source of its heartbeats.
type transportComponent struct {
	tr     Transport
	health *mailbox
	cancel context.CancelFunc
	done   chan struct{}
	err    error // set before done is closed
}

func newTransportComponent(tr Transport) *transportComponent {
	return &transportComponent{tr: tr, health: newMailbox(), done: make(chan struct{})}
}

func (t *transportComponent) Name() string { return "transport" }

// Start connects in the background: Run keeps reconnecting on its own.
// The connection's context is its own, not ctx: it lives until Stop, so
// that a signal closes it in the shutdown's order, not whenever it lands.
func (t *transportComponent) Start(context.Context) error {
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	go func() {
		t.err = t.tr.Run(ctx, t.health.put)
		close(t.done)
	}()
	return nil
}

func (t *transportComponent) Done() <-chan struct{} { return t.done }

func (t *transportComponent) Err() error {
	select {
	case <-t.done:
		return t.err
	default:
		return nil
	}
}

// Stop closes the connection and waits until Run returned, which it does
// only once the connection is closed.
func (t *transportComponent) Stop(ctx context.Context) error {
	if t.cancel == nil {
		return nil // never started
	}
	t.cancel()
	select {
	case <-t.done:
		return t.err
	case <-ctx.Done():
		return fmt.Errorf("transport still closing: %w", ctx.Err())
	}
}

func (t *transportComponent) Health() Health { return t.health.take() }

func (t *transportComponent) HealthChanged() <-chan struct{} { return t.health.ready }

// mailbox holds the latest health report: a transport never blocks on a slow
// heartbeat, and the daemon always writes the newest state. It passes on
// a report only when it changed, so every one is worth an immediate
// heartbeat, and redacts its error whatever provider wrote it.
type mailbox struct {
	mu    sync.Mutex
	value Health
	put1  bool // a report arrived: value is not only the zero Health
	ready chan struct{}
}

func newMailbox() *mailbox { return &mailbox{ready: make(chan struct{}, 1)} }

func (m *mailbox) put(h Health) {
	h.Err = redactURLs(h.Err)
	m.mu.Lock()
	if m.put1 && m.value.same(h) {
		m.mu.Unlock()
		return
	}
	m.value, m.put1 = h, true
	m.mu.Unlock()
	select {
	case m.ready <- struct{}{}:
	default:
	}
}

func (m *mailbox) take() Health {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.value
}
