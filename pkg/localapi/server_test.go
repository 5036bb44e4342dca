package localapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
)

// post sends body to path on dir's socket, for dir, and returns the status
// and the decoded error answer, if any.
func post(t *testing.T, dir, method, path string, body []byte) (int, Error) {
	t.Helper()
	id, err := IdentifyDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return postWith(t, dir, method, path, body, http.Header{DirHeader: {id.header()}})
}

// postWith is post with the request's header h as it is.
func postWith(t *testing.T, dir, method, path string, body []byte, h http.Header) (int, Error) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", SocketPath(dir))
	}}}
	req, err := http.NewRequestWithContext(t.Context(), method, "http://x"+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var e Error
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(data, &e); err != nil {
			t.Fatalf("%s %s: %d, not a JSON error: %q", method, path, resp.StatusCode, data)
		}
	}
	return resp.StatusCode, e
}

// Requests are bounded and strict: each bad one is the caller's mistake
// (exit 2), answered as JSON, and never reaches the backend.
func TestServerRefusesBadRequests(t *testing.T) {
	b := &fakeBackend{}
	dir := serveOn(t, NewServer(b, logr.Discard()))
	huge := []byte(`{"names":["` + strings.Repeat("a", MaxRequest) + `"]}`)
	for _, c := range []struct {
		name, method, path string
		body               []byte
		status             int
		says               string
	}{
		{"too big", http.MethodPost, PathStatus, huge, http.StatusBadRequest, "over 65536 bytes"},
		{"unknown field", http.MethodPost, PathStop, []byte(`{"names":["a"],"forse":true}`), http.StatusBadRequest, `unknown field "forse"`},
		{"not JSON", http.MethodPost, PathStart, []byte(`names=a`), http.StatusBadRequest, "request to /v1/start"},
		{"two values", http.MethodPost, PathStatus, []byte(`{} {}`), http.StatusBadRequest, "more than one JSON value"},
		{"GET", http.MethodGet, PathStatus, nil, http.StatusMethodNotAllowed, "only POST"},
		{"unversioned", http.MethodPost, "/status", []byte(`{}`), http.StatusNotFound, "no endpoint /status"},
		{"another version", http.MethodPost, "/v2/status", []byte(`{}`), http.StatusNotFound, "this loop serves /v1"},
	} {
		status, e := post(t, dir, c.method, c.path, c.body)
		if status != c.status || e.Code != exitUsage || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: %d %+v, want %d, exit 2, %q", c.name, status, e, c.status, c.says)
		}
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend was called %d times", n)
	}
}

// An error keeps its exit code across the socket: usage 2, lock 3, else 1.
func TestErrorsKeepTheirExitCodes(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{reconcile.CheckViewNames(&reconcile.Status{}, []string{"x"}), exitUsage},
		{fmt.Errorf("stop --all: %w", ownership.ErrPassesLocked), exitLock},
		{errors.New("reading status: permission denied"), exitFailed},
	} {
		dir := serveOn(t, NewServer(&fakeBackend{err: c.err}, logr.Discard()))
		_, err := NewClient(dir).Stop(t.Context(), StopRequest{Selection: reconcile.Selection{Names: []string{"a"}}})
		if ExitCode(err) != c.code || !strings.Contains(err.Error(), c.err.Error()) {
			t.Errorf("%v: client got %v (exit %d), want exit %d", c.err, err, ExitCode(err), c.code)
		}
		if ExitCode(c.err) != c.code {
			t.Errorf("ExitCode(%v) = %d, want %d (acting directly)", c.err, ExitCode(c.err), c.code)
		}
	}
}

// A request's fields reach the backend, and its answer the client.
func TestRoundTrip(t *testing.T) {
	dir := serveOn(t, NewServer(&fakeBackend{}, logr.Discard()))
	c := NewClient(dir)
	resp, err := c.Stop(t.Context(), StopRequest{Selection: reconcile.Selection{Names: []string{"a"}}, Force: true, GracefulTimeout: metav1.Duration{Duration: 3 * time.Second}})
	if err != nil || len(resp.Results) != 1 || !resp.Results[0].OK || resp.Results[0].Message != "3s" || resp.Failed() {
		t.Fatalf("stop: %+v, %v", resp, err)
	}
	st, err := c.Status(t.Context(), StatusRequest{Names: []string{"a", "b"}})
	if err != nil || len(st.Daemons) != 2 || !st.SpecValid {
		t.Fatalf("status: %+v, %v", st, err)
	}
	if rep, err := c.GC(t.Context(), GCRequest{}); err != nil || rep.Items == nil {
		t.Fatalf("gc: %+v, %v", rep, err)
	}
}

// No socket, or a dead loop's: ErrNoLoop, so the command may act itself.
func TestClientNoLoop(t *testing.T) {
	dir := agentDir(t)
	if _, err := NewClient(dir).Status(t.Context(), StatusRequest{}); !errors.Is(err, ErrNoLoop) || !strings.Contains(err.Error(), "no loop answering on "+SocketPath(dir)) {
		t.Errorf("no socket: %v", err)
	}
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: SocketPath(dir), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	if _, err := NewClient(dir).Status(t.Context(), StatusRequest{}); !errors.Is(err, ErrNoLoop) {
		t.Errorf("stale socket: %v", err)
	}
}

// A loop that accepts and never answers (stopped, say) is an error after
// the client's bound, never a reason to act alone.
func TestClientHungLoopIsAnError(t *testing.T) {
	dir := agentDir(t)
	ln, err := net.Listen("unix", SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err = NewClient(dir).Status(ctx, StatusRequest{})
	if err == nil || errors.Is(err, ErrNoLoop) {
		t.Errorf("hung loop: %v, want an error that is not ErrNoLoop", err)
	}
}

// A client that sends its headers and then dribbles (or stops sending) its
// body is answered and let go within bodyWait, not held open for ever: the
// header timeout ends with the headers, and nothing else bounds the body.
func TestServeBoundsASlowBody(t *testing.T) {
	defer func(d time.Duration) { bodyWait = d }(bodyWait)
	bodyWait = 200 * time.Millisecond
	dir := agentDir(t)
	stop, err := Serve(t.Context(), dir, &slowBackend{hold: 3 * bodyWait}, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c, err := net.Dial("unix", SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := IdentifyDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "POST /v1/status HTTP/1.1\r\nHost: x\r\n"+DirHeader+": "+id.header()+"\r\nContent-Length: 100\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	answer, err := io.ReadAll(c)
	if err != nil || !strings.HasPrefix(string(answer), "HTTP/1.1 400") || !strings.Contains(string(answer), "timeout") {
		t.Fatalf("a body that never came: %q, %v; want a 400 naming the timeout, then the connection closed", answer, err)
	}
	// The bound is the body's only: a request read in time may take
	// longer than bodyWait to answer, and its context is not cut short.
	if code, e := post(t, dir, http.MethodPost, PathStatus, []byte(`{}`)); code != http.StatusOK {
		t.Fatalf("a request answered after bodyWait: %d %+v", code, e)
	}
}

// slowBackend answers status after hold, unless its context ends first.
type slowBackend struct {
	fakeBackend
	hold time.Duration
}

func (b *slowBackend) Status(ctx context.Context, req StatusRequest) (*reconcile.Status, error) {
	select {
	case <-time.After(b.hold):
		return b.fakeBackend.Status(ctx, req)
	case <-ctx.Done():
		return nil, fmt.Errorf("cut short: %w", context.Cause(ctx))
	}
}
