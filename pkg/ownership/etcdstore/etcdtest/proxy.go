package etcdtest

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proxy forwards 127.0.0.1 connections to one member, and can be cut the
// way a partition cuts: connections stay open and everything sent is
// silently dropped, so a client finds out only by its own deadlines. It
// can also slow the member down: every answer arrives late, in order.
type Proxy struct {
	l      net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	delay time.Duration
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

// Delay holds back everything the member sends by d from now on (0: none):
// a cluster that is slow but answers, as one under load or far away.
func (p *Proxy) Delay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

func (p *Proxy) delayed() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delay
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
		go p.pump(out, in, false)
		go p.pump(in, out, true)
	}
}

// chunk is what was read from one side, and when it may be written to the
// other.
type chunk struct {
	data []byte
	due  time.Time
}

// pump copies src to dst until either closes, dropping what arrives while
// the proxy is cut; the member's answers (late) are written after the
// delay, in the order they came.
func (p *Proxy) pump(dst, src net.Conn, late bool) {
	chunks := make(chan chunk, 1024)
	go func() {
		defer dst.Close()
		for c := range chunks {
			time.Sleep(time.Until(c.due))
			if _, err := dst.Write(c.data); err != nil {
				_ = src.Close()
				for range chunks {
				}
				return
			}
		}
	}()
	defer close(chunks)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.isCut() {
			c := chunk{data: append([]byte(nil), buf[:n]...), due: time.Now()}
			if late {
				c.due = c.due.Add(p.delayed())
			}
			chunks <- c
		}
		if err != nil {
			return
		}
	}
}
