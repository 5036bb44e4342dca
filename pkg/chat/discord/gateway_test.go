package discord

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

const (
	gwToken   = "tok-gw"
	gwChannel = "200000000000000055"
	gwUser    = "300000000000000001"
)

// events records a connection's dispatches.
type events struct {
	mu   sync.Mutex
	seen []string      // event name, or MESSAGE_CREATE:content
	more chan struct{} // closed and replaced at each dispatch
}

func (e *events) dispatch(event string, data json.RawMessage) {
	if event == "MESSAGE_CREATE" {
		var m struct{ Content string }
		_ = json.Unmarshal(data, &m)
		event += ":" + m.Content
	}
	e.mu.Lock()
	e.seen = append(e.seen, event)
	if e.more != nil {
		close(e.more)
	}
	e.more = make(chan struct{})
	e.mu.Unlock()
}

// wait waits for a dispatch of event.
func (e *events) wait(t *testing.T, event string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		e.mu.Lock()
		if e.more == nil {
			e.more = make(chan struct{})
		}
		more, has := e.more, slices.Contains(e.seen, event)
		e.mu.Unlock()
		if has {
			return
		}
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("no %s; saw %v", event, e.list())
		}
	}
}

func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen)
}

func (e *events) has(event string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range e.seen {
		if s == event {
			return true
		}
	}
	return false
}

func startGatewayFake(t *testing.T) *fakediscord.Server {
	t.Helper()
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{gwToken}, Channels: []string{gwChannel}, HeartbeatInterval: 100 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// dial opens a connection to f: a RESUME of r, or an IDENTIFY when r is nil.
func dial(t *testing.T, f *fakediscord.Server, r *resumeState, ev *events) (*gateway, error) {
	t.Helper()
	url := f.GatewayURL()
	if r != nil {
		url = r.URL
	}
	return openGateway(context.Background(), gatewayDial{dialer: websocket.DefaultDialer, url: url, token: gwToken,
		intents: 1<<0 | 1<<9 | 1<<15, resume: r, handshake: 5 * time.Second, dispatch: ev.dispatch})
}

func mustDial(t *testing.T, f *fakediscord.Server, r *resumeState, ev *events) *gateway {
	t.Helper()
	g, err := dial(t, f, r, ev)
	if err != nil {
		t.Fatalf("connecting (resume %v): %v", r != nil, err)
	}
	t.Cleanup(func() { g.close(closeResumable) })
	return g
}

func waitFake(t *testing.T, f *fakediscord.Server, what string, cond func(fakediscord.TokenStats) bool) fakediscord.TokenStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sn, err := f.WaitFor(ctx, func(sn fakediscord.Snapshot) bool { return cond(sn.Tokens[gwToken]) })
	if err != nil {
		t.Fatalf("waiting for %s: %v; stats %+v", what, err, sn.Tokens[gwToken])
	}
	return sn.Tokens[gwToken]
}

func waitEnded(t *testing.T, g *gateway) error {
	t.Helper()
	select {
	case <-g.ended():
		return g.err()
	case <-time.After(10 * time.Second):
		t.Fatal("the connection did not end")
		return nil
	}
}

// A connection identifies, heartbeats, and when closed with
// closeResumable leaves a session that a new connection RESUMEs, with
// the dispatches missed between them replayed: one IDENTIFY in all.
func TestGatewayIdentifyThenResume(t *testing.T) {
	f := startGatewayFake(t)
	ev := &events{}
	g := mustDial(t, f, nil, ev)
	if !ev.has("READY") {
		t.Fatal("connected without a READY")
	}
	st := g.state()
	if st == nil || st.SessionID == "" || st.URL != f.GatewayURL() {
		t.Fatalf("session after READY: %+v", st)
	}
	waitFake(t, f, "heartbeats", func(s fakediscord.TokenStats) bool { return s.Heartbeats >= 2 })
	if time.Since(g.lastAckAt()) > time.Second {
		t.Fatalf("last ACK %v ago", time.Since(g.lastAckAt()))
	}
	g.close(closeResumable)
	waitFake(t, f, "the connection gone", func(s fakediscord.TokenStats) bool { return s.Live == 0 })
	// The RESUME is held unanswered while the message is sent: it can
	// reach the new connection only as the RESUME's replay.
	f.HoldResumes()
	r := g.state()
	ev2 := &events{}
	type dialed struct {
		g   *gateway
		err error
	}
	res := make(chan dialed, 1)
	go func() {
		g2, err := dial(t, f, r, ev2)
		res <- dialed{g2, err}
	}()
	waitFake(t, f, "the RESUME held", func(s fakediscord.TokenStats) bool { return s.HeldResumes == 1 })
	if _, err := f.InjectMessage(gwChannel, gwUser, "while away"); err != nil {
		t.Fatal(err)
	}
	f.ReleaseResumes()
	d := <-res
	if d.err != nil {
		t.Fatalf("resuming: %v", d.err)
	}
	g2 := d.g
	t.Cleanup(func() { g2.close(closeResumable) })
	if got := ev2.list(); !slices.Equal(got, []string{"MESSAGE_CREATE:while away", "RESUMED"}) {
		t.Fatalf("the RESUME's dispatches: %v, want the missed message once, then RESUMED", got)
	}
	if s := g2.state(); s.SessionID != r.SessionID || s.Seq <= r.Seq {
		t.Fatalf("resumed session %+v, was %+v", s, r)
	}
	stats := waitFake(t, f, "the RESUME", func(s fakediscord.TokenStats) bool { return s.Resumes == 1 && s.Live == 1 })
	if stats.Identifies != 1 || stats.MaxLive != 1 {
		t.Fatalf("stats %+v, want one IDENTIFY and never two live", stats)
	}
}

// A connection closed with 1000 ends its session: its RESUME is refused
// with op 9, not resumable, and the transport then IDENTIFYs.
func TestGatewayNormalCloseEndsTheSession(t *testing.T) {
	f := startGatewayFake(t)
	g := mustDial(t, f, nil, &events{})
	g.close(websocket.CloseNormalClosure)
	_, err := dial(t, f, g.state(), &events{})
	if n, _ := afterEnd(err); n != identify {
		t.Fatalf("RESUME after a 1000 close: %v, want op 9 not resumable", err)
	}
}

// What the gateway asks or does to a live connection, and what the
// client makes of it.
func TestGatewayEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(*fakediscord.Server)
		want next
		is   func(error) bool
	}{
		{"op 7 RECONNECT", func(f *fakediscord.Server) { f.AskReconnect() }, resume,
			func(err error) bool { return errors.Is(err, errReconnect) }},
		{"op 9 resumable", func(f *fakediscord.Server) { f.InvalidateSessions(true) }, resume,
			func(err error) bool { e, ok := errors.AsType[*invalidSessionError](err); return ok && e.resumable }},
		{"op 9 not resumable", func(f *fakediscord.Server) { f.InvalidateSessions(false) }, identify,
			func(err error) bool { e, ok := errors.AsType[*invalidSessionError](err); return ok && !e.resumable }},
		{"heartbeats not ACKed", func(f *fakediscord.Server) { f.SetHeartbeatAcks(false) }, resume,
			func(err error) bool { return errors.Is(err, errZombie) }},
		{"cut", func(f *fakediscord.Server) { f.DropConnections() }, resume,
			func(err error) bool { return err != nil }},
		{"token revoked: 4004", func(f *fakediscord.Server) { f.SetTokenRejected(gwToken, true) }, terminal,
			func(err error) bool { e, ok := errors.AsType[*websocket.CloseError](err); return ok && e.Code == 4004 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := startGatewayFake(t)
			g := mustDial(t, f, nil, &events{})
			tc.do(f)
			err := waitEnded(t, g)
			if !tc.is(err) {
				t.Fatalf("ended with %v", err)
			}
			if n, _ := afterEnd(err); n != tc.want {
				t.Fatalf("afterEnd(%v) = %v, want %v", err, n, tc.want)
			}
			if tc.want != resume {
				return
			}
			f.SetHeartbeatAcks(true)
			ev := &events{}
			mustDial(t, f, g.state(), ev)
			if !ev.has("RESUMED") {
				t.Fatalf("no RESUMED after %s: %v", tc.name, ev.seen)
			}
			if s := waitFake(t, f, "the RESUME", func(s fakediscord.TokenStats) bool { return s.Live == 1 }); s.Identifies != 1 || s.Resumes != 1 {
				t.Fatalf("stats %+v, want the one IDENTIFY and one RESUME", s)
			}
		})
	}
}

// The handshake is bounded: a READY that does not come in time is an
// error, and the socket is closed.
func TestGatewayHandshakeBound(t *testing.T) {
	f := startGatewayFake(t)
	f.SetReadyDelay(5 * time.Second)
	start := time.Now()
	_, err := openGateway(context.Background(), gatewayDial{dialer: websocket.DefaultDialer, url: f.GatewayURL(), token: gwToken,
		handshake: 300 * time.Millisecond, dispatch: (&events{}).dispatch})
	if err == nil || !strings.Contains(err.Error(), "handshake took too long") || time.Since(start) > 3*time.Second {
		t.Fatalf("openGateway = %v after %v, want the handshake bound", err, time.Since(start))
	}
	waitFake(t, f, "the socket closed", func(s fakediscord.TokenStats) bool { return s.Live == 0 })
}

func TestAfterEnd(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want next
	}{
		{&websocket.CloseError{Code: 4004}, terminal},
		{&websocket.CloseError{Code: 4014}, terminal},
		{&websocket.CloseError{Code: 4007}, identify},
		{&websocket.CloseError{Code: 4009}, identify},
		{&websocket.CloseError{Code: 4000}, resume},
		{&websocket.CloseError{Code: 1006}, resume},
		{&invalidSessionError{resumable: true}, resume},
		{&invalidSessionError{}, identify},
		{errReconnect, resume},
		{errors.New("read: connection reset"), resume},
	} {
		if n, _ := afterEnd(tc.err); n != tc.want {
			t.Errorf("afterEnd(%v) = %v, want %v", tc.err, n, tc.want)
		}
	}
}
