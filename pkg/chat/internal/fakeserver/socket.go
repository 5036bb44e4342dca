package fakeserver

import (
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

const (
	// MaxPayload bounds a frame or a request body a fake reads.
	MaxPayload   = 1 << 20
	writeTimeout = 5 * time.Second
	outQueue     = 1024
	// closeGrace is how long a socket stays open after a close frame went
	// out: closing it at once can reset it before the peer has read the
	// frame, and then the client sees a reset instead of the code.
	closeGrace = time.Second
)

// The services serve browsers too, so any Origin is fine.
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// Socket is a fake server's end of a client's websocket. Its writer
// goroutine is the only one to write to the network, from a bounded queue,
// so nothing writes under the fake's lock. A fault (or the server closing)
// cuts it with Abort, which sends no close frame, as a network failure would.
type Socket struct {
	WS    *websocket.Conn
	out   chan frame
	dead  chan struct{}
	once  sync.Once
	wrote chan struct{} // closed when the writer has returned
	later *time.Timer   // a greeting LaterLocked put off
}

type frame struct {
	data []byte
	code int // non-zero: a close frame with this code and text
	text string
}

// Pinger says how often a socket's writer pings and whether it does now.
type Pinger struct {
	Every time.Duration // 0: never
	On    func() bool
}

// errOutage refuses a handshake during SetUnavailable.
var errOutage = errors.New("socket endpoint unavailable")

// Upgrade answers a websocket handshake, 503 during an outage, and starts
// the socket's writer.
func (s *Server) Upgrade(w http.ResponseWriter, r *http.Request, ping Pinger) (*Socket, error) {
	s.mu.Lock()
	out := s.faults.unavailable
	s.mu.Unlock()
	if out {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return nil, errOutage
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return nil, err // Upgrade has answered the request
	}
	ws.SetReadLimit(MaxPayload)
	c := &Socket{WS: ws, out: make(chan frame, outQueue), dead: make(chan struct{}), wrote: make(chan struct{})}
	go c.write(ping)
	return c, nil
}

// Send queues a data frame; false when the queue is full: a client this far
// behind is as good as gone, and its caller cuts it.
func (s *Socket) Send(b []byte) bool {
	select {
	case s.out <- frame{data: b}:
		return true
	default:
		return false
	}
}

// SendClose queues a close frame, after which the writer stops; a socket
// whose queue is full is cut instead.
func (s *Socket) SendClose(code int, text string) {
	select {
	case s.out <- frame{code: code, text: text}:
	default:
		s.Abort()
	}
}

func (s *Socket) write(ping Pinger) {
	defer close(s.wrote)
	var tick <-chan time.Time
	if ping.Every > 0 {
		t := time.NewTicker(ping.Every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case f := <-s.out:
			_ = s.WS.SetWriteDeadline(time.Now().Add(writeTimeout))
			if f.code != 0 {
				_ = s.WS.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(f.code, f.text))
				_ = s.WS.SetReadDeadline(time.Now().Add(closeGrace))
				return
			}
			if err := s.WS.WriteMessage(websocket.TextMessage, f.data); err != nil {
				s.Abort()
				return
			}
		case now := <-tick:
			if !ping.On() {
				continue
			}
			if err := s.WS.WriteControl(websocket.PingMessage, []byte(now.Format(time.RFC3339Nano)), now.Add(writeTimeout)); err != nil {
				s.Abort()
				return
			}
		case <-s.dead:
			return
		}
	}
}

// Cut takes, under the lock, the sockets to cut (take has counted them
// gone), wakes the waiters and cuts them without a close frame, as a
// network failure would; it returns how many.
func (s *Server) Cut(take func() []*Socket) int {
	s.mu.Lock()
	cut := take()
	s.NotifyLocked()
	s.mu.Unlock()
	for _, c := range cut {
		c.Abort()
	}
	return len(cut)
}

// Abort cuts the socket without a close frame; later calls do nothing.
func (s *Socket) Abort() {
	s.once.Do(func() {
		close(s.dead)
		_ = s.WS.Close()
	})
}

// Finish cuts the socket, once its reader has returned, stops a greeting
// still put off, and waits for its writer.
func (s *Socket) Finish() {
	s.Abort()
	if s.later != nil {
		s.later.Stop()
	}
	<-s.wrote
}

// LaterLocked greets a socket after d (a delay a test asked for): greet runs
// under the lock then, unless the server has closed, or at once when d is
// not positive. A socket whose client left meanwhile must find greet a no-op.
func (s *Server) LaterLocked(c *Socket, d time.Duration, greet func()) {
	if d <= 0 {
		greet()
		return
	}
	c.later = time.AfterFunc(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.closed {
			greet()
		}
	})
}

// Gone reports whether the client has closed or reset its end (see Gone).
func (s *Socket) Gone() bool { return Gone(s.WS.NetConn()) }

// ShutLocked says whether a socket just upgraded must be cut rather than
// served: the server closed, or an outage began, during the upgrade.
func (s *Server) ShutLocked() bool { return s.closed || s.faults.unavailable }
