package peer

import (
	"sync"

	"github.com/gorilla/websocket"
)

// Socket is a fake server's end of a client's websocket: its writer stops on
// Dead, and a fault (or the server closing) cuts it with Abort, which sends
// no close frame, as a network failure would.
type Socket struct {
	WS   *websocket.Conn
	dead chan struct{}
	once sync.Once
}

// NewSocket wraps an upgraded connection.
func NewSocket(ws *websocket.Conn) *Socket {
	return &Socket{WS: ws, dead: make(chan struct{})}
}

// Abort cuts the socket without a close frame; later calls do nothing.
func (s *Socket) Abort() {
	s.once.Do(func() {
		close(s.dead)
		_ = s.WS.Close()
	})
}

// Dead is closed by Abort.
func (s *Socket) Dead() <-chan struct{} { return s.dead }

// Gone reports whether the client has closed or reset its end (see Gone).
func (s *Socket) Gone() bool { return Gone(s.WS.NetConn()) }
