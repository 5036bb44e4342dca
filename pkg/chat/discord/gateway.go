package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// The gateway is our own client, not discordgo's: discordgo v0.29.0 keeps
// a session's id, sequence and resume URL unexported and sets them only
// from a READY it read itself, so a new process could never RESUME the
// session its predecessor handed over. discordgo stays for REST.

// Gateway opcodes, as Discord numbers them.
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opResume         = 6
	opReconnect      = 7
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatAck   = 11
)

// gatewayVersion is the gateway API version asked for in the URL.
const gatewayVersion = "10"

// readLimit caps one gateway frame: a READY or GUILD_CREATE of the one
// guild the bot works in is far below it; a larger frame is an error.
const readLimit = 16 << 20

// closeResumable is the close code the client ends a connection with
// when its session must stay resumable: Discord ends the session on 1000
// and 1001 only (4000-4999 are the application's own codes).
const closeResumable = 4900

// resumeState is what a RESUME needs: the session, the last sequence
// number received, and the URL Discord said to resume at.
type resumeState struct {
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"`
	URL       string `json:"resume_gateway_url"`
}

func (r *resumeState) valid() bool {
	return r != nil && r.SessionID != "" && r.Seq >= 0 && r.URL != ""
}

// gatewayDial is one connect's inputs.
type gatewayDial struct {
	dialer    *websocket.Dialer
	url       string // where to connect: /gateway/bot's url, or the resume URL
	token     string
	intents   int
	resume    *resumeState // non-nil: RESUME this session instead of IDENTIFY
	handshake time.Duration
	// dispatch receives every dispatch (op 0), READY and RESUMED
	// included, in the order read; it must not block for long.
	dispatch func(event string, data json.RawMessage)
}

// gateway is one open gateway connection. One goroutine reads, one sends
// heartbeats; writes are serialized by wmu (gorilla allows one writer).
type gateway struct {
	ws       *websocket.Conn
	wmu      sync.Mutex
	seq      atomic.Int64
	lastAck  atomic.Int64 // unix nanoseconds of the last heartbeat ACK
	awaiting atomic.Bool  // a heartbeat was sent and not ACKed yet
	readyCh  chan struct{}
	done     chan struct{} // closed when the read loop ended
	endOnce  sync.Once
	endErr   error // why the connection ended; set before done closes

	mu        sync.Mutex
	sessionID string // from READY, or the resumed one
	resumeURL string
}

// errors that end a connection, as the transport tells them apart.
var (
	errReconnect = errors.New("discord asked to reconnect (op 7)")
	errZombie    = errors.New("no ACK for the last heartbeat: the connection is a zombie")
	errClosed    = errors.New("connection closed by the client")
)

// invalidSessionError is op 9: the session is gone unless resumable.
type invalidSessionError struct{ resumable bool }

func (e *invalidSessionError) Error() string {
	return fmt.Sprintf("discord invalidated the session (op 9, resumable %v)", e.resumable)
}

type payload struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int64          `json:"s"`
	T  string          `json:"t"`
}

// openGateway connects, reads HELLO, sends IDENTIFY or RESUME and waits
// for READY or RESUMED, all within gd.handshake (and ctx). The connection
// then runs on its own until close, or an error ends it (done, err).
func openGateway(ctx context.Context, gd gatewayDial) (*gateway, error) {
	ctx, cancel := context.WithTimeout(ctx, gd.handshake)
	defer cancel()
	u, err := gatewayURL(gd.url)
	if err != nil {
		return nil, err
	}
	ws, _, err := gd.dialer.DialContext(ctx, u, nil)
	if err != nil {
		return nil, fmt.Errorf("dialling the gateway: %w", err)
	}
	ws.SetReadLimit(readLimit)
	g := &gateway{ws: ws, readyCh: make(chan struct{}), done: make(chan struct{})}
	// ctx ends the handshake by closing the socket: every read below
	// then fails at once.
	stop := context.AfterFunc(ctx, func() { _ = ws.Close() })
	interval, err := g.hello()
	if err != nil {
		stop()
		_ = ws.Close()
		return nil, handshakeErr(ctx, err)
	}
	if gd.resume.valid() {
		g.seq.Store(gd.resume.Seq)
		g.sessionID, g.resumeURL = gd.resume.SessionID, gd.resume.URL
		err = g.send(opResume, map[string]any{"token": gd.token, "session_id": gd.resume.SessionID, "seq": gd.resume.Seq})
	} else {
		err = g.send(opIdentify, identifyData(gd.token, gd.intents))
	}
	if err != nil {
		stop()
		_ = ws.Close()
		return nil, handshakeErr(ctx, err)
	}
	g.lastAck.Store(time.Now().UnixNano())
	go g.read(gd.dispatch)
	go g.beat(interval)
	select {
	case <-g.readyCh:
		if !stop() {
			// ctx ended as READY came: the socket is closed already.
			<-g.done
			return nil, handshakeErr(ctx, ctx.Err())
		}
		return g, nil
	case <-g.done:
		stop()
		return nil, handshakeErr(ctx, g.endErr)
	case <-ctx.Done():
		<-g.done
		return nil, handshakeErr(ctx, ctx.Err())
	}
}

// handshakeErr names a handshake cut short by its time bound.
func handshakeErr(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("gateway handshake took too long: %w", err)
	}
	return err
}

// gatewayURL is the URL to dial: the service's, with the version and
// encoding this client speaks.
func gatewayURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "wss" && u.Scheme != "ws") || u.Host == "" {
		return "", fmt.Errorf("gateway URL %q is not a websocket URL", raw)
	}
	q := u.Query()
	q.Set("v", gatewayVersion)
	q.Set("encoding", "json")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func identifyData(token string, intents int) map[string]any {
	return map[string]any{
		"token":   token,
		"intents": intents,
		"properties": map[string]string{
			"os": runtime.GOOS, "browser": "reconciler", "device": "reconciler",
		},
	}
}

// hello reads op 10 and returns its heartbeat interval.
func (g *gateway) hello() (time.Duration, error) {
	_, data, err := g.ws.ReadMessage()
	if err != nil {
		return 0, fmt.Errorf("reading HELLO: %w", err)
	}
	var p payload
	var h struct {
		Interval int64 `json:"heartbeat_interval"`
	}
	if err := json.Unmarshal(data, &p); err != nil || p.Op != opHello || json.Unmarshal(p.D, &h) != nil || h.Interval <= 0 {
		return 0, fmt.Errorf("the gateway's first payload is not a HELLO (op %d)", p.Op)
	}
	return time.Duration(h.Interval) * time.Millisecond, nil
}

// send writes one payload.
func (g *gateway) send(op int, d any) error {
	b, err := json.Marshal(map[string]any{"op": op, "d": d})
	if err != nil {
		return err
	}
	g.wmu.Lock()
	defer g.wmu.Unlock()
	_ = g.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return g.ws.WriteMessage(websocket.TextMessage, b)
}

func (g *gateway) heartbeat() error {
	var d any // null before any dispatch
	if s := g.seq.Load(); s > 0 {
		d = s
	}
	return g.send(opHeartbeat, d)
}

// beat sends a heartbeat every interval, the first after a random part
// of it (Discord asks for this jitter so that bots do not beat in step).
// A heartbeat due while the last is not ACKed ends the connection: it is
// a zombie, and a reconnect RESUMEs.
func (g *gateway) beat(interval time.Duration) {
	t := time.NewTimer(time.Duration(rand.Float64() * float64(interval)))
	defer t.Stop()
	for {
		select {
		case <-g.done:
			return
		case <-t.C:
		}
		if g.awaiting.Swap(true) {
			g.end(errZombie, closeResumable)
			return
		}
		if err := g.heartbeat(); err != nil {
			g.end(fmt.Errorf("sending a heartbeat: %w", err), 0)
			return
		}
		t.Reset(interval)
	}
}

// read handles every payload until the connection ends.
func (g *gateway) read(dispatch func(string, json.RawMessage)) {
	defer close(g.done)
	for {
		_, data, err := g.ws.ReadMessage()
		if err != nil {
			g.end(err, 0)
			return
		}
		var p payload
		if err := json.Unmarshal(data, &p); err != nil {
			g.end(fmt.Errorf("decoding a gateway payload: %w", err), closeResumable)
			return
		}
		if err := g.handle(p, dispatch); err != nil {
			g.end(err, closeResumable)
			return
		}
	}
}

// handle is one payload; an error ends the connection.
func (g *gateway) handle(p payload, dispatch func(string, json.RawMessage)) error {
	switch p.Op {
	case opDispatch:
		if p.S != nil {
			g.seq.Store(*p.S)
		}
		switch p.T {
		case "READY":
			var r struct {
				SessionID string `json:"session_id"`
				ResumeURL string `json:"resume_gateway_url"`
			}
			if err := json.Unmarshal(p.D, &r); err != nil || r.SessionID == "" {
				return fmt.Errorf("a READY without a session id")
			}
			g.mu.Lock()
			g.sessionID, g.resumeURL = r.SessionID, r.ResumeURL
			g.mu.Unlock()
		}
		dispatch(p.T, p.D)
		if p.T == "READY" || p.T == "RESUMED" {
			g.markReady()
		}
	case opHeartbeat:
		// Discord asks for a heartbeat now.
		if err := g.heartbeat(); err != nil {
			return fmt.Errorf("answering a heartbeat request: %w", err)
		}
	case opHeartbeatAck:
		g.awaiting.Store(false)
		g.lastAck.Store(time.Now().UnixNano())
	case opReconnect:
		return errReconnect
	case opInvalidSession:
		var resumable bool
		_ = json.Unmarshal(p.D, &resumable)
		return &invalidSessionError{resumable: resumable}
	}
	return nil
}

func (g *gateway) markReady() {
	select {
	case <-g.readyCh:
	default:
		close(g.readyCh)
	}
}

// end records why the connection ends (the first reason wins) and closes
// it; code, when not 0, is the close frame sent first.
func (g *gateway) end(why error, code int) {
	g.endOnce.Do(func() {
		g.endErr = why
		if code != 0 {
			// WriteControl may run beside a write (gorilla allows it), so
			// a send stuck on a full socket does not hold the close up.
			_ = g.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(time.Second))
		}
		_ = g.ws.Close()
	})
}

// close ends the connection with code and waits for its reader.
func (g *gateway) close(code int) {
	g.end(errClosed, code)
	<-g.done
}

// ended is closed once the connection is over; err says why.
func (g *gateway) ended() <-chan struct{} { return g.done }

func (g *gateway) err() error {
	<-g.done
	return g.endErr
}

// lastAckAt is when the last heartbeat ACK came (the connect's time
// before the first).
func (g *gateway) lastAckAt() time.Time { return time.Unix(0, g.lastAck.Load()) }

// state is the session as it stands: what a RESUME of it needs, or nil
// before a READY began one, or when it gave no URL a RESUME can dial
// (resuming at "" would fail the same way at every reconnect).
func (g *gateway) state() *resumeState {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sessionID == "" {
		return nil
	}
	if _, err := gatewayURL(g.resumeURL); err != nil {
		return nil
	}
	return &resumeState{SessionID: g.sessionID, Seq: g.seq.Load(), URL: g.resumeURL}
}
