package localapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"time"

	"gjc.dev/reconciler/pkg/gc"
	"gjc.dev/reconciler/pkg/reconcile"
)

// ErrNoLoop: no loop answers on the socket (none is there, or the one there
// is a dead loop's). Nothing was sent, so the caller may act itself.
var ErrNoLoop = errors.New("no loop answering")

// Bounds of a client's wait for the loop's answer, so a loop that is hung
// (stopped by a debugger, say) never hangs a command. A read is immediate;
// an operation is bounded by the loop (each of readyTimeout, gracefulTimeout
// and killTimeout is at most 10 minutes, and a restart waits for all three)
// after the pass lock.
const (
	readBound      = 30 * time.Second
	operationBound = 30 * time.Minute
)

// Client asks the loop of one agent dir over its socket.
type Client struct {
	agentDir string
	path     string
	uid      int // the uid the loop must run as: this process's
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	hc       *http.Client
	// Progress, when set, hears the loop's waits while it carries out an
	// operation (progress.go), as a command acting alone hears its own.
	Progress reconcile.ProgressFunc
}

var _ Backend = (*Client)(nil)

// NewClient is a client of agentDir's loop; it connects on each request.
func NewClient(agentDir string) *Client {
	path := SocketPath(agentDir)
	c := &Client{agentDir: agentDir, path: path, uid: os.Getuid()}
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		if len(path) > maxSocketPath {
			return nil, fmt.Errorf("%w on %s: %w", ErrNoLoop, path, ErrSocketPathTooLong)
		}
		// A loop binds its socket itself: a link there leads to some other
		// socket, most likely another agent dir's loop. Nothing is sent to
		// it, and it is no reason to act alone either. (A link swapped in
		// after this look, or on a dir on the way, meets the loop's own
		// check of the dir the request names.)
		if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSymlink {
			return nil, fmt.Errorf("refused the socket %s: it is a symlink, and a loop's socket never is; nothing was sent (remove the link; the agent dir's own loop makes its socket)", path)
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, "unix", path)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w on %s", ErrNoLoop, path)
		}
		if err != nil {
			return nil, err
		}
		// The loop's rule in reverse: only a server of this uid is this
		// user's loop. Another's answers are not trusted, and it is sent
		// nothing; nor is it a reason to act alone.
		if err := checkServer(conn, c.uid); err != nil {
			conn.Close()
			return nil, fmt.Errorf("refused the socket %s: %w", path, err)
		}
		return conn, nil
	}
	c.dial = dial
	c.hc = &http.Client{Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}
	return c
}

// checkServer is the kernel's word on who listens at the other end.
func checkServer(conn net.Conn, uid int) error {
	p, err := peerOf(conn)
	switch {
	case err != nil:
		return fmt.Errorf("its server's credentials could not be read: %w", err)
	case p.UID != uid:
		return fmt.Errorf("it is served by uid %d, not this user's (uid %d) loop", p.UID, uid)
	}
	return nil
}

// Answering reports whether something listens on the socket: nil, or
// ErrNoLoop (or why the socket could not be reached). A command that waits
// says it waits for the loop only once it knows one is there.
func (c *Client) Answering(ctx context.Context) error {
	conn, err := c.dial(ctx, "", "")
	if err != nil {
		return err
	}
	return conn.Close()
}

// Path is the socket the client asks on.
func (c *Client) Path() string { return c.path }

func (c *Client) Status(ctx context.Context, req StatusRequest) (*reconcile.Status, error) {
	return call[*reconcile.Status](ctx, c, PathStatus, req, readBound)
}

func (c *Client) Stop(ctx context.Context, req StopRequest) (*OperateResponse, error) {
	return call[*OperateResponse](ctx, c, PathStop, req, req.LockTimeout.Duration+operationBound)
}

func (c *Client) Start(ctx context.Context, req StartRequest) (*OperateResponse, error) {
	return call[*OperateResponse](ctx, c, PathStart, req, req.LockTimeout.Duration+operationBound)
}

func (c *Client) Restart(ctx context.Context, req RestartRequest) (*OperateResponse, error) {
	return call[*OperateResponse](ctx, c, PathRestart, req, req.LockTimeout.Duration+operationBound)
}

func (c *Client) GC(ctx context.Context, req GCRequest) (*gc.Report, error) {
	return call[*gc.Report](ctx, c, PathGC, req, req.LockTimeout.Duration+operationBound)
}

// call posts req to path and decodes the answer: a Resp, or the loop's
// *Error. Failing to connect at all is ErrNoLoop; anything after that is
// the loop's answer or a failure to get it, never a reason to act alone.
func call[Resp any](ctx context.Context, c *Client, path string, req any, bound time.Duration) (Resp, error) {
	var zero Resp
	body, err := encodeRequest(req)
	if err != nil {
		return zero, err
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	hreq, err := c.newRequest(ctx, path, body)
	if err != nil {
		return zero, err
	}
	if c.Progress != nil {
		hreq.Header.Set("Accept", ContentTypeProgress)
	}
	resp, err := c.hc.Do(hreq)
	if err != nil {
		if errors.Is(err, ErrNoLoop) {
			return zero, unwrapURL(err)
		}
		return zero, fmt.Errorf("asking the loop on %s: %w", c.path, unwrapURL(err))
	}
	defer resp.Body.Close()
	if streamed(resp) {
		return readStream[Resp](resp.Body, c.path, c.Progress)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponse+1))
	switch {
	case err != nil:
		return zero, fmt.Errorf("reading the loop's answer on %s: %w", c.path, err)
	case len(data) > MaxResponse:
		return zero, fmt.Errorf("the loop's answer on %s is over %d bytes", c.path, MaxResponse)
	}
	if resp.StatusCode != http.StatusOK {
		var e Error
		if json.Unmarshal(data, &e) != nil || e.Message == "" || e.Code == 0 {
			return zero, fmt.Errorf("the loop on %s answered %s: %.200q", c.path, resp.Status, data)
		}
		e.Message = "the loop on " + c.path + ": " + e.Message
		return zero, &e
	}
	var out Resp
	if err := json.Unmarshal(data, &out); err != nil {
		return zero, fmt.Errorf("the loop's answer on %s: %w", c.path, err)
	}
	return out, nil
}

// newRequest is a POST of body to path, naming the agent dir it is for
// (DirHeader): every request to a loop is made here.
func (c *Client) newRequest(ctx context.Context, path string, body []byte) (*http.Request, error) {
	id, err := IdentifyDir(c.agentDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w on %s: %w", ErrNoLoop, c.path, err)
	}
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://reconciler"+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set(DirHeader, id.header())
	return hreq, nil
}

// encodeRequest is req as JSON, with < > & as they are: a sent message's
// text is full of them, and json.Marshal's six-byte escapes would take a
// text well within bus.MaxTextSize past MaxSendRequest.
func encodeRequest(req any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// unwrapURL drops net/http's "Post \"http://reconciler/...\":" wrapping,
// which names no real URL.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
