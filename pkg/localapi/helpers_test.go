package localapi

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"gjc.dev/reconciler/pkg/gc"
	"gjc.dev/reconciler/pkg/reconcile"
)

// fakeBackend answers with what a test sets, and counts its calls.
type fakeBackend struct {
	calls atomic.Int32
	err   error
}

func (f *fakeBackend) Status(_ context.Context, req StatusRequest) (*reconcile.Status, error) {
	f.calls.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	st := &reconcile.Status{Version: 1, SpecValid: true}
	for _, n := range req.Names {
		st.Daemons = append(st.Daemons, reconcile.DaemonStatus{Name: n, Phase: reconcile.PhaseRunning})
	}
	return st, nil
}

func (f *fakeBackend) Stop(_ context.Context, req StopRequest) (*OperateResponse, error) {
	f.calls.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	return &OperateResponse{Results: []reconcile.OperateResult{{Name: req.Names[0], Action: "stop", OK: req.Force, Message: req.GracefulTimeout.Duration.String()}}}, nil
}

func (f *fakeBackend) Start(context.Context, StartRequest) (*OperateResponse, error) {
	f.calls.Add(1)
	return nil, f.err
}

func (f *fakeBackend) Restart(context.Context, RestartRequest) (*OperateResponse, error) {
	f.calls.Add(1)
	return nil, f.err
}

func (f *fakeBackend) GC(context.Context, GCRequest) (*gc.Report, error) {
	f.calls.Add(1)
	return &gc.Report{Items: []gc.Item{}}, f.err
}

func (f *fakeBackend) Send(_ context.Context, req SendRequest) (*SendResponse, error) {
	f.calls.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	return &SendResponse{ID: req.Message.ID}, nil
}

// agentDir is a private agent dir with its state dir, short enough for a
// socket address.
func agentDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "api")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.MkdirAll(filepath.Join(dir, "sdk", "reconciler"), 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// serveOn serves s as the loop of an agent dir of its own (no loop lock)
// until the test ends.
func serveOn(t *testing.T, s *Server) string {
	t.Helper()
	dir := agentDir(t)
	id, err := IdentifyDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.dir = id
	ln, err := listen(SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s.Handler(), ConnContext: withPeer}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close(); <-done; _ = ln.close() })
	return dir
}

func exitCodeOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return -1
}
