package daemonlog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/natefinch/lumberjack.v2"

	"gjc.dev/reconciler/pkg/linefile"
	"gjc.dev/reconciler/pkg/ownership"
)

func daemonDir(t *testing.T) (agentDir, log string) {
	t.Helper()
	agentDir = t.TempDir()
	dir := ownership.PathsFor(agentDir, "bot").Dir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return agentDir, filepath.Join(dir, FileName)
}

func readAll(t *testing.T, agentDir string, tail int) ([]string, error) {
	t.Helper()
	var out []string
	_, err := Read(agentDir, "bot", tail, func(l linefile.Line) { out = append(out, string(l.Text)) })
	return out, err
}

func TestReadTail(t *testing.T) {
	agentDir, log := daemonDir(t)
	if err := os.WriteFile(log, []byte("1\n2\n3\n4\nno newline yet"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tail int
		want string
	}{{-1, "1,2,3,4,no newline yet"}, {2, "4,no newline yet"}, {0, ""}, {100, "1,2,3,4,no newline yet"}} {
		got, err := readAll(t, agentDir, c.tail)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("tail %d: %q, want %q", c.tail, got, c.want)
		}
	}
}

// A daemon.log that is a FIFO or a symbolic link, or a daemon dir that is
// a symbolic link, is refused with an error saying so; a missing log is
// just empty.
func TestReadRefusesFIFOAndSymlinks(t *testing.T) {
	agentDir, log := daemonDir(t)
	if got, err := readAll(t, agentDir, -1); err != nil || len(got) != 0 {
		t.Errorf("missing log: %q %v", got, err)
	}
	if err := syscall.Mkfifo(log, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := readAll(t, agentDir, -1); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("FIFO log: %v, want a refusal naming the FIFO", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
	_ = os.Remove(log)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("elsewhere\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, log); err != nil {
		t.Fatal(err)
	}
	if got, err := readAll(t, agentDir, -1); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlinked log: %q %v, want a refusal", got, err)
	}
	// The daemon dir itself a link to a dir holding a daemon.log.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, FileName), []byte("elsewhere\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(log)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, dir); err != nil {
		t.Fatal(err)
	}
	if got, err := readAll(t, agentDir, -1); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlinked daemon dir: %q %v, want a refusal", got, err)
	}
	if _, err := Read(t.TempDir(), "bot", -1, func(linefile.Line) {}); err == nil || !strings.Contains(err.Error(), "no daemon dir") {
		t.Errorf("no daemon dir: %v", err)
	}
}

// Following shows the tail, then every line as the daemon writes it,
// across lumberjack's rotation (rename to a backup, then a new file), as
// the daemon's own log does it.
func TestFollowAcrossLumberjackRotation(t *testing.T) {
	agentDir, log := daemonDir(t)
	lj := &lumberjack.Logger{Filename: log, MaxSize: 1} // MiB
	defer lj.Close()
	write := func(s string) {
		if _, err := lj.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		write(fmt.Sprintf("old %d", i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lines := make(chan string, 10000)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, agentDir, "bot", 2, func(l linefile.Line) { lines <- string(l.Text) })
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-ctx.Done():
			t.Fatal("no line before the deadline")
			return ""
		}
	}
	if a, b := next(), next(); a != "old 3" || b != "old 4" {
		t.Fatalf("tail %q %q, want the last two", a, b)
	}
	pad := strings.Repeat("p", 1000)
	const n = 2200 // over 2 MiB: two rotations
	go func() {
		for i := range n {
			if _, err := lj.Write([]byte(fmt.Sprintf("new %d %s\n", i, pad))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range n {
		if got, want := next(), fmt.Sprintf("new %d ", i); !strings.HasPrefix(got, want) {
			t.Fatalf("line %.12q, want %q", got, want)
		}
	}
	backups, _ := filepath.Glob(filepath.Join(filepath.Dir(log), "daemon-*.log"))
	if len(backups) < 2 {
		t.Errorf("the test did not rotate twice: backups %v", backups)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Follow: %v", err)
	}
}

// The rotated logs are lumberjack's daemon-<time>.log, oldest first; the
// log itself and other files are not among them.
func TestBackups(t *testing.T) {
	_, log := daemonDir(t)
	dir := filepath.Dir(log)
	for _, n := range []string{"daemon.log", "daemon-2026-01-02T03-04-05.000.log", "daemon-2025-12-31T23-59-59.999.log", "state.json", "other-1.log"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := Backups(log)
	want := []string{filepath.Join(dir, "daemon-2025-12-31T23-59-59.999.log"), filepath.Join(dir, "daemon-2026-01-02T03-04-05.000.log")}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Backups = %q, want %q", got, want)
	}
}
