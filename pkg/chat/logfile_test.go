package chat

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMain lets the test binary play a daemon that panics after its log rotated.
func TestMain(m *testing.M) {
	if path := os.Getenv("CHAT_TEST_PANIC_LOG"); path != "" {
		// As the reconciler starts a daemon: stderr on daemon.log.
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_APPEND, 0o600)
		if err != nil || unix.Dup2(fd, 2) != nil {
			panic(err)
		}
		f := OpenLogFile(path)
		_, _ = f.Write([]byte("before rotation\n"))
		_ = f.Rotate()
		_, _ = f.Write([]byte("after rotation\n"))
		panic("boom-after-rotation")
	}
	os.Exit(m.Run())
}

// A panic after a rotation lands in the current daemon.log, whose tail the
// reconciler shows for a crash, not in the rotated file.
func TestLogFileKeepsStderrOnTheCurrentFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "daemon.log")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CHAT_TEST_PANIC_LOG="+path)
	if err := cmd.Run(); err == nil {
		t.Fatal("the helper did not panic")
	}
	current, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(current, []byte("after rotation")) || !bytes.Contains(current, []byte("boom-after-rotation")) {
		t.Errorf("current daemon.log lacks the panic:\n%s", current)
	}
	entries, _ := os.ReadDir(dir)
	rotated := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "daemon-") {
			rotated++
			data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			if bytes.Contains(data, []byte("boom")) {
				t.Errorf("the panic went to the rotated %s", e.Name())
			}
		}
	}
	if rotated != 1 {
		t.Errorf("%d rotated files, want 1", rotated)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("daemon.log mode: %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}
