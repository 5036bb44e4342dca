package discord

import (
	"context"
	"net"
	"sync"
)

// connTracker remembers the sockets discordgo dials so a stuck handshake can be
// cut off from outside.
type connTracker struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (t *connTracker) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.conns = append(t.conns, c)
	t.mu.Unlock()
	return c, nil
}

// forget drops the sockets of a handshake that completed; discordgo owns them now.
func (t *connTracker) forget() {
	t.mu.Lock()
	t.conns = nil
	t.mu.Unlock()
}

func (t *connTracker) closeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.conns {
		_ = c.Close()
	}
	t.conns = nil
}
