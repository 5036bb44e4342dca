package fakediscord

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// Gateway opcodes and close codes, as Discord numbers them.
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opPresence       = 3
	opVoiceState     = 4
	opResume         = 6
	opRequestMembers = 8
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatAck   = 11

	closeUnknownOpcode    = 4001
	closeDecodeError      = 4002
	closeNotAuthenticated = 4003
	closeAuthFailed       = 4004
	closeAlreadyAuthed    = 4005
)

// conn is one gateway websocket. Its own goroutine reads; the Socket's
// writer is the only one to write.
type conn struct {
	*fakeserver.Socket

	// Guarded by Server.mu.
	token       string    // set by IDENTIFY or RESUME
	intents     int       // set by IDENTIFY
	sess        *session  // the session while it is live on this connection
	swept       *session  // the session a sweep took off this connection (its peer had gone)
	sweptAt     time.Time // and when: the session's awaySince then
	identifying bool      // IDENTIFY accepted, READY pending
	closing     bool      // a close frame is queued or the socket is cut: send nothing more
	deaf        bool      // Deafen: dispatches are kept for RESUME but never sent here
}

// control is a non-dispatch payload; s and t are null as Discord sends them.
type control struct {
	Op int     `json:"op"`
	D  any     `json:"d"`
	S  *int64  `json:"s"`
	T  *string `json:"t"`
}

func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	sock, err := s.core.Upgrade(w, r, fakeserver.Pinger{})
	if err != nil {
		return
	}
	c := &conn{Socket: sock}
	s.mu.Lock()
	if s.core.ShutLocked() {
		s.mu.Unlock()
		sock.Finish()
		return
	}
	s.conns[c] = struct{}{}
	s.sendLocked(c, control{Op: opHello, D: map[string]int64{"heartbeat_interval": s.opts.HeartbeatInterval.Milliseconds()}})
	s.mu.Unlock()
	s.logf("gateway connection from %s", r.RemoteAddr)

	s.readLoop(c)

	s.mu.Lock()
	s.detachLocked(c)
	s.dropHeldLocked(c)
	delete(s.conns, c)
	s.notifyLocked()
	s.mu.Unlock()
	c.Finish()
}

func (s *Server) readLoop(c *conn) {
	for {
		_, data, err := c.WS.ReadMessage()
		if err != nil {
			if ce, ok := errors.AsType[*websocket.CloseError](err); ok &&
				(ce.Code == websocket.CloseNormalClosure || ce.Code == websocket.CloseGoingAway) {
				// Discord ends the session when the client closes with 1000 or
				// 1001; a later RESUME gets INVALID_SESSION.
				s.endSession(c)
			}
			return
		}
		s.handle(c, data)
	}
}

func (s *Server) handle(c *conn, data []byte) {
	var p struct {
		Op *int            `json:"op"`
		D  json.RawMessage `json:"d"`
	}
	if err := json.Unmarshal(data, &p); err != nil || p.Op == nil {
		s.closeConn(c, closeDecodeError, "Error while decoding payload.")
		return
	}
	switch *p.Op {
	case opHeartbeat:
		s.heartbeat(c, p.D)
	case opIdentify:
		s.identify(c, p.D)
	case opResume:
		s.resume(c, p.D)
	case opPresence, opVoiceState, opRequestMembers:
		s.mu.Lock()
		if c.sess == nil && !c.closing {
			s.closeLocked(c, closeNotAuthenticated, "Not authenticated.")
		}
		s.mu.Unlock()
	default:
		s.closeConn(c, closeUnknownOpcode, "Unknown opcode.")
	}
}

// heartbeat answers op 1; its d is the client's last sequence number,
// or null before any dispatch.
func (s *Server) heartbeat(c *conn, raw json.RawMessage) {
	var seq *int64
	_ = json.Unmarshal(raw, &seq) // Discord does not close for a bad d
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.sess != nil {
		st := s.statsLocked(c.token)
		st.Heartbeats++
		st.HeartbeatSeq = 0
		if seq != nil {
			st.HeartbeatSeq = *seq
		}
		s.notifyLocked()
	}
	if s.faults.acks {
		s.sendLocked(c, control{Op: opHeartbeatAck})
	}
}

func (s *Server) closeConn(c *conn, code int, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked(c, code, text)
}

// closeLocked ends the connection's session and queues a close frame.
func (s *Server) closeLocked(c *conn, code int, text string) {
	if c.closing {
		return
	}
	s.detachLocked(c)
	s.notifyLocked()
	s.logf("closing gateway connection with %d %s", code, text)
	c.SendClose(code, text)
}

// rejectLocked closes a connection whose token is not accepted; its session
// is over for good, as on Discord.
func (s *Server) rejectLocked(c *conn) {
	s.statsLocked(c.token).Rejections++
	if c.sess != nil {
		delete(s.sessions, c.sess.id)
	}
	s.closeLocked(c, closeAuthFailed, "Authentication failed.")
}

// sendLocked queues a payload; under s.mu so sequence order is queue order.
func (s *Server) sendLocked(c *conn, v any) {
	s.sendRawLocked(c, fakeserver.MustMarshal(v))
}

func (s *Server) sendRawLocked(c *conn, b []byte) {
	if !c.closing && !c.Send(b) {
		// A client this far behind is as good as gone; Discord drops it too.
		s.logf("gateway client too slow, cutting it")
		s.detachLocked(c)
		c.Abort()
	}
}
