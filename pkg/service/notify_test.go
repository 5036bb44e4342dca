package service

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
)

// fakeSystemd listens where NOTIFY_SOCKET points.
func fakeSystemd(t *testing.T) *net.UnixConn {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	t.Setenv("NOTIFY_SOCKET", path)
	return conn
}

func read(t *testing.T, c *net.UnixConn) string {
	t.Helper()
	buf := make([]byte, 1024)
	if err := c.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	n, err := c.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n])
}

func TestNotifier(t *testing.T) {
	c := fakeSystemd(t)
	t.Setenv("WATCHDOG_USEC", "2000000")
	n := NewNotifier(logr.Discard())

	n.Pass(1, 2, 0)
	if got := read(t, c); got != "READY=1\nSTATUS=1/2 ready" {
		t.Errorf("first pass sent %q", got)
	}
	n.Pass(2, 2, 0)
	if got := read(t, c); got != "STATUS=2/2 ready" {
		t.Errorf("second pass sent %q, want STATUS only", got)
	}
	n.Pass(0, 0, 3)
	if got := read(t, c); got != "STATUS=0/0 ready; spec invalid: 3 error(s), run reconciler validate" {
		t.Errorf("a pass on an invalid spec sent %q, want the spec's trouble in STATUS", got)
	}
	n.Reloading()
	if got := read(t, c); !strings.HasPrefix(got, "RELOADING=1\nMONOTONIC_USEC=") {
		t.Errorf("reloading sent %q", got)
	}
	n.Reloaded()
	if got := read(t, c); got != "READY=1" {
		t.Errorf("reloaded sent %q", got)
	}
	n.Stopping()
	if got := read(t, c); got != "STOPPING=1" {
		t.Errorf("stopping sent %q", got)
	}
	if got := n.WatchdogInterval(); got != time.Second {
		t.Errorf("watchdog interval %v, want half of WATCHDOG_USEC (1s)", got)
	}
}

// Without NOTIFY_SOCKET (launchd, a shell) it sends nothing and has no watchdog.
func TestNotifierOff(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	t.Setenv("WATCHDOG_USEC", "2000000")
	n := NewNotifier(logr.Discard())
	n.Pass(1, 1, 0) // must not fail or block
	if got := n.WatchdogInterval(); got != 0 {
		t.Errorf("watchdog interval %v without NOTIFY_SOCKET", got)
	}
}

// A signal during the first pass: STOPPING=1 goes out, and nothing after it
// says READY=1, or systemd would take a stopping service for a started one.
func TestNotifierNoReadyAfterStopping(t *testing.T) {
	c := fakeSystemd(t)
	n := NewNotifier(logr.Discard())
	n.Stopping()
	if got := read(t, c); got != "STOPPING=1" {
		t.Errorf("stopping sent %q", got)
	}
	n.Pass(0, 2, 0)
	if got := read(t, c); got != "STATUS=0/2 ready" {
		t.Errorf("a pass after STOPPING sent %q, want STATUS only", got)
	}
	n.Reloaded() // sends nothing: the next read must be the ping below
	n.Watchdog()
	if got := read(t, c); got != "WATCHDOG=1" {
		t.Errorf("a reload ending after STOPPING sent %q", got)
	}
}
