package systemtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

// notifyMsg is one datagram the loop sent to the fake systemd.
type notifyMsg struct {
	at   time.Time
	text string
}

// listenNotify plays systemd's side of NOTIFY_SOCKET.
func listenNotify(t *testing.T) (string, <-chan notifyMsg) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ch := make(chan notifyMsg, 1024)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				close(ch)
				return
			}
			ch <- notifyMsg{time.Now(), string(buf[:n])}
		}
	}()
	return path, ch
}

// next waits for a message containing want, returning it and what came before.
func next(t *testing.T, ch <-chan notifyMsg, want string) (notifyMsg, []notifyMsg) {
	t.Helper()
	var skipped []notifyMsg
	deadline := time.After(e2eDeadline)
	for {
		select {
		case m, ok := <-ch:
			if !ok {
				t.Fatalf("notify socket closed before %q", want)
			}
			if strings.Contains(m.text, want) {
				return m, skipped
			}
			skipped = append(skipped, m)
		case <-deadline:
			t.Fatalf("no %q from the loop within %v; got %v", want, e2eDeadline, skipped)
		}
	}
}

func TestSystemdNotify(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	sock, msgs := listenNotify(t)
	const watchdogUsec = 2_000_000
	e.env = append(e.env, "NOTIFY_SOCKET="+sock, fmt.Sprintf("WATCHDOG_USEC=%d", watchdogUsec))
	loop := e.startLoop()

	t0 := time.Now()
	ready, before := next(t, msgs, "READY=1")
	t.Logf("READY after %v", time.Since(t0))
	for _, m := range before {
		if !strings.HasPrefix(m.text, "WATCHDOG=1") {
			t.Errorf("sent %q before READY", m.text)
		}
	}
	// READY comes after the first full pass: both daemons already healthy.
	for _, n := range []string{"discord", "slack"} {
		if rec := fsstore.ReadState(e.paths(n)); !healthy(rec) {
			t.Errorf("READY=1 before %s was healthy", n)
		}
	}
	if !strings.Contains(ready.text, "STATUS=2/2 ready") {
		t.Errorf("READY message %q lacks STATUS=2/2 ready", ready.text)
	}

	// Watchdog pings at half of WATCHDOG_USEC. What systemd needs is that no
	// gap reaches WATCHDOG_USEC; what an idle machine needs is that they do
	// not come much faster than half of it. Both bounds leave room for a
	// loaded CI machine's scheduling delays.
	const pings = 5
	want := watchdogUsec * time.Microsecond / 2
	prev, _ := next(t, msgs, "WATCHDOG=1")
	first := prev
	for range pings - 1 {
		m, _ := next(t, msgs, "WATCHDOG=1")
		if gap := m.at.Sub(prev.at); gap >= 2*want {
			t.Errorf("%v between watchdog pings: systemd would have killed the loop (WATCHDOG_USEC %v)", gap, 2*want)
		}
		prev = m
	}
	if avg := prev.at.Sub(first.at) / (pings - 1); avg < want*7/10 {
		t.Errorf("watchdog every %v on average, want about %v", avg, want)
	}

	if err := loop.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	reloading, _ := next(t, msgs, "RELOADING=1")
	if !strings.Contains(reloading.text, "MONOTONIC_USEC=") {
		t.Errorf("RELOADING without MONOTONIC_USEC: %q", reloading.text)
	}
	next(t, msgs, "READY=1")

	// Children never inherit NOTIFY_SOCKET (nor the watchdog settings).
	for _, n := range []string{"discord", "slack"} {
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", e.state(n).PID))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"NOTIFY_SOCKET=", "WATCHDOG_USEC="} {
			if bytes.Contains(environ, []byte(v)) {
				t.Errorf("%s inherited %s", n, v)
			}
		}
	}

	if err := loop.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	next(t, msgs, "STOPPING=1")
	t1 := time.Now()
	<-loop.done
	t.Logf("loop exited %v after SIGTERM", time.Since(t1))
	// Killing the loop never stops a daemon.
	for _, n := range []string{"discord", "slack"} {
		if rec := fsstore.ReadState(e.paths(n)); rec.State == nil || rec.State.StoppedAt != nil {
			t.Errorf("%s stopped with the loop: %s", n, rec.Raw)
		}
	}
}

// A loop started on a spec that does not validate says so: STATUS= names
// it, and each spec error is logged at error level.
func TestSystemdStatusNamesAnInvalidSpec(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	if err := os.WriteFile(e.specPath, []byte("apiVersion: nope\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock, msgs := listenNotify(t)
	e.env = append(e.env, "NOTIFY_SOCKET="+sock)
	loop := e.startLoop()
	ready, _ := next(t, msgs, "READY=1")
	if !strings.Contains(ready.text, "spec invalid") {
		t.Errorf("READY on an invalid spec sent %q; STATUS must say the spec is invalid", ready.text)
	}
	loop.logs.waitLog(t, "a spec error at error level", func(lines []map[string]any) bool {
		for _, l := range lines {
			if l["level"] == "error" && strings.HasPrefix(fmt.Sprint(l["msg"]), "spec error") {
				return true
			}
		}
		return false
	})
}
