package chat

import (
	"context"
	"errors"
	"sync"

	"gjc.dev/reconciler/pkg/inbound"
)

// InboundPort carries a transport's inbound messages to the daemon's
// inbound side. The transport exists before the name is owned and the
// inbound side only after (it lands files only while the claim holds), so
// the port is made first, given to both, and attached once the inbound
// side started: until then a message waits, as long as its context lets
// it, and is then left to the service to deliver again.
//
// The port carries one thing back: the inbound side's word that the
// live connection is deaf (its history sweep landed replies the
// connection did not deliver), which the transport answers by
// connecting again.
type InboundPort struct {
	dir      string
	mu       sync.Mutex
	in       *inbound.Inbound
	attached chan struct{}
	once     sync.Once
	deaf     chan string
}

// NewInboundPort returns a port with nothing attached yet.
func NewInboundPort() *InboundPort {
	return &InboundPort{attached: make(chan struct{}), deaf: make(chan string, 1)}
}

// Deaf delivers why the live connection must be made again; never for a
// nil port.
func (p *InboundPort) Deaf() <-chan string {
	if p == nil {
		return nil
	}
	return p.deaf
}

// reportDeaf is inbound.Options.Deaf: one reason waits at most, a newer
// one while it waits is dropped (one reconnect answers both).
func (p *InboundPort) reportDeaf(why string) {
	select {
	case p.deaf <- why:
	default:
	}
}

// NewInboundPortIn returns a port for a daemon whose state directory is
// dir: a transport that must keep a small record of what it confirmed to
// the service (Telegram's getUpdates offset) keeps it there.
func NewInboundPortIn(dir string) *InboundPort {
	p := NewInboundPort()
	p.dir = dir
	return p
}

// StateDir is the daemon's state directory; "" for a port without one.
func (p *InboundPort) StateDir() string {
	if p == nil {
		return ""
	}
	return p.dir
}

func (p *InboundPort) attach(in *inbound.Inbound) {
	p.mu.Lock()
	p.in = in
	p.mu.Unlock()
	p.once.Do(func() { close(p.attached) })
}

var errNoInbound = errors.New("no inbound side attached")

// Receive hands ev to the inbound side and returns what became of it.
func (p *InboundPort) Receive(ctx context.Context, ev inbound.Event) (inbound.Outcome, error) {
	if p == nil {
		return inbound.Ignored, nil
	}
	select {
	case <-p.attached:
	case <-ctx.Done():
		return 0, errNoInbound
	}
	p.mu.Lock()
	in := p.in
	p.mu.Unlock()
	return in.Receive(ctx, ev)
}

// Connected says the transport (re)connected: history is read again.
func (p *InboundPort) Connected() {
	if p == nil {
		return
	}
	p.mu.Lock()
	in := p.in
	p.mu.Unlock()
	if in != nil {
		in.Connected()
	}
}

// Decide hands a click to the inbound side and returns its verdict
// (inbound.Inbound.Decide); with nothing attached yet it waits as Receive
// does, and a nil port knows no ask.
func (p *InboundPort) Decide(ctx context.Context, c inbound.Click) (inbound.Verdict, error) {
	if p == nil {
		return inbound.Verdict{Kind: inbound.Unknown}, nil
	}
	select {
	case <-p.attached:
	case <-ctx.Done():
		return inbound.Verdict{}, errNoInbound
	}
	p.mu.Lock()
	in := p.in
	p.mu.Unlock()
	return in.Decide(ctx, c)
}
