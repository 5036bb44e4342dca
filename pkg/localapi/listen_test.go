package localapi

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

func TestListenFresh(t *testing.T) {
	path := SocketPath(agentDir(t))
	l, err := listen(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket %v, %v; want a socket, 0600", fi, err)
	}
	if err := l.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after close: %v", err)
	}
}

// A socket no one listens on is a dead loop's: replaced.
func TestListenReplacesStaleSocket(t *testing.T) {
	path := SocketPath(agentDir(t))
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	l, err := listen(path)
	if err != nil {
		t.Fatalf("over a stale socket: %v", err)
	}
	defer l.close()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("the new socket does not answer: %v", err)
	}
	c.Close()
}

// A socket that answers is another loop's: refused, left as it is, its pid
// named.
func TestListenRefusesAnsweringSocket(t *testing.T) {
	path := SocketPath(agentDir(t))
	other, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = listen(path)
	var answered *AnsweredError
	if !errors.As(err, &answered) || answered.PID != os.Getpid() {
		t.Fatalf("over an answering socket: %v, want AnsweredError naming pid %d", err, os.Getpid())
	}
	if c, err := net.Dial("unix", path); err != nil {
		t.Errorf("the other socket was removed: %v", err)
	} else {
		c.Close()
	}
}

// What is not a socket is not ours to remove: refused, untouched.
func TestListenRefusesNonSocket(t *testing.T) {
	for _, c := range []struct {
		kind string
		make func(path string) error
	}{
		{"a regular file", func(p string) error { return os.WriteFile(p, []byte("x"), 0o600) }},
		{"a symlink", func(p string) error { return os.Symlink("/nonexistent", p) }},
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }},
	} {
		path := SocketPath(agentDir(t))
		if err := c.make(path); err != nil {
			t.Fatal(err)
		}
		before, _ := os.Lstat(path)
		_, err := listen(path)
		if err == nil || !strings.Contains(err.Error(), path+" is "+c.kind+", not a socket; it is left as it is") {
			t.Errorf("%s: %v", c.kind, err)
		}
		if after, err := os.Lstat(path); err != nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
			t.Errorf("%s changed: %v -> %v, %v", c.kind, before, after, err)
		}
	}
}

// close removes only the socket it bound: one put there since stays.
func TestCloseRemovesOnlyItsOwnSocket(t *testing.T) {
	path := SocketPath(agentDir(t))
	l, err := listen(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("an operator's"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.close(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "an operator's" {
		t.Errorf("close removed what it did not bind: %q, %v", data, err)
	}
}

func TestListenPathTooLong(t *testing.T) {
	long := "/tmp/" + strings.Repeat("d", maxSocketPath) + "/api.sock"
	if _, err := listen(long); !errors.Is(err, ErrSocketPathTooLong) {
		t.Errorf("listen on a %d-byte path: %v", len(long), err)
	}
	if _, err := NewClient(filepath.Dir(filepath.Dir(filepath.Dir(long)))).Status(t.Context(), StatusRequest{}); !errors.Is(err, ErrNoLoop) {
		t.Errorf("client on a too long path: %v, want ErrNoLoop", err)
	}
}

// Serve holds the agent dir's loop lock: a second Serve is refused with the
// holder named, and once the first stops, the socket is gone and another
// may serve.
func TestServeOneLoopPerAgentDir(t *testing.T) {
	dir := agentDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop, err := Serve(ctx, dir, &fakeBackend{}, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Serve(ctx, dir, &fakeBackend{}, logr.Discard()); !errors.Is(err, fsstore.ErrLoopRunning) || !strings.Contains(err.Error(), SocketPath(dir)) {
		t.Errorf("second Serve: %v, want ErrLoopRunning naming the socket", err)
	}
	if _, err := NewClient(dir).Status(t.Context(), StatusRequest{}); err != nil {
		t.Errorf("the first stopped answering: %v", err)
	}
	stop()
	if _, err := os.Lstat(SocketPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket after stop: %v", err)
	}
	if _, err := NewClient(dir).Status(t.Context(), StatusRequest{}); !errors.Is(err, ErrNoLoop) {
		t.Errorf("after stop: %v, want ErrNoLoop", err)
	}
	stop2, err := Serve(ctx, dir, &fakeBackend{}, logr.Discard())
	if err != nil {
		t.Fatalf("Serve after the first stopped: %v", err)
	}
	stop2()
}

// The end of the context stops serving, as a stopping loop does.
func TestServeStopsWithItsContext(t *testing.T) {
	dir := agentDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	stop, err := Serve(ctx, dir, &fakeBackend{}, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	stop() // waits for the stop the context started
	if _, err := os.Lstat(SocketPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket after the context ended: %v", err)
	}
}
