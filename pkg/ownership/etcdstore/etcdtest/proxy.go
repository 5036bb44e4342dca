package etcdtest

import (
	"net"
	"strings"
	"sync"
	"testing"
)

// Proxy forwards 127.0.0.1 connections to one member, and can be cut the
// way a partition cuts: connections stay open and everything sent is
// silently dropped, so a client finds out only by its own deadlines.
type Proxy struct {
	l      net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

// NewProxy proxies to the first member; stopped by the test's cleanup.
func (c *Cluster) NewProxy(t testing.TB) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("etcdtest: proxy: %v", err)
	}
	p := &Proxy{l: l, target: strings.TrimPrefix(c.Endpoints()[0], "http://")}
	go p.serve()
	t.Cleanup(func() {
		_ = l.Close()
		p.closeAll()
	})
	return p
}

// Endpoint is the proxy's client URL.
func (p *Proxy) Endpoint() string { return "http://" + p.l.Addr().String() }

// Cut starts dropping everything, both ways, on every connection.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
}

// Heal ends the cut: the dead connections are closed, so the client makes
// new ones, which work.
func (p *Proxy) Heal() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
	p.closeAll()
}

func (p *Proxy) closeAll() {
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

func (p *Proxy) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

func (p *Proxy) serve() {
	for {
		in, err := p.l.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go p.pump(out, in)
		go p.pump(in, out)
	}
}

// pump copies src to dst until either closes, dropping what arrives while
// the proxy is cut.
func (p *Proxy) pump(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.isCut() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			_ = dst.Close()
			return
		}
	}
}
