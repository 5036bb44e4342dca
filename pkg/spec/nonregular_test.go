package spec

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadDeadline bounds a load that must never block: far above any real read.
const loadDeadline = 10 * time.Second

// loadWithin runs load and fails the test if it does not return in time. A
// load stuck in open(2) on one of fifos is released by opening the FIFO for
// writing, so the failing test still ends.
func loadWithin(t *testing.T, load func() *Result, fifos ...string) *Result {
	t.Helper()
	done := make(chan *Result, 1)
	go func() { done <- load() }()
	select {
	case res := <-done:
		return res
	case <-time.After(loadDeadline):
		for _, f := range fifos {
			if fd, err := syscall.Open(f, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				_ = syscall.Close(fd)
			}
		}
		<-done
		t.Fatalf("load blocked for %v", loadDeadline)
		return nil
	}
}

func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A spec file that is not a regular file is refused, never opened in a way
// that blocks, and named with what it is.
func TestSpecFileNotRegular(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	fifo := mkfifo(t, dir, "daemons.yaml")
	target := writeFile(t, dir, "real.yaml", discordDoc("discord", ""))
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, fifo + ": not a regular file (a named pipe)"},
		{link, link + ": not a regular file (a symbolic link)"},
		{"/dev/null", "/dev/null: not a regular file (a character device)"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			res := loadWithin(t, func() *Result { return LoadOnce(tc.path) }, fifo)
			if got := issueStrings(res.Errors); res.Valid() || !strings.Contains(got, tc.want+"\n") {
				t.Errorf("errors %q, want %q", got, tc.want)
			}
		})
	}
}

// In a directory source, a *.yaml entry that is not a regular file is an
// error of that file: its objects are kept as last known good, the other
// files still count, and the watch-and-reload path never blocks on it.
func TestSpecDirNotRegularEntries(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", discordDoc("discord", ""))
	b := writeFile(t, dir, "b.yaml", slackDoc("slack"))
	l := NewLoader(dir)
	if res := l.Load(); !res.Valid() || len(res.Daemons) != 2 {
		t.Fatalf("initial load: %s", issueStrings(res.Errors))
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	fifo := mkfifo(t, dir, "b.yaml")
	sock := filepath.Join(dir, "c.yml")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	link := filepath.Join(dir, "d.yaml")
	if err := os.Symlink(filepath.Join(dir, "a.yaml"), link); err != nil {
		t.Fatal(err)
	}
	res := loadWithin(t, l.Load, fifo)
	got := issueStrings(res.Errors)
	for _, want := range []string{
		fifo + ": not a regular file (a named pipe)",
		sock + ": not a regular file (a socket)",
		link + ": not a regular file (a symbolic link)",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("errors %q do not contain %q", got, want)
		}
	}
	if res.Valid() || !slices.Equal(res.Names(), []string{"discord", "slack"}) {
		t.Errorf("valid=%v names=%v, want invalid with b.yaml's last known good kept", res.Valid(), res.Names())
	}
	// Reloading again (the loop's next event or SIGHUP) does not block either.
	loadWithin(t, l.Load, fifo)
}

// A fromFile secret that is a FIFO is refused by what it is, without blocking.
func TestSecretFromFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir, "token")
	p := writeFile(t, dir, "d.yaml", fileTokenDoc("a", "token"))
	res := loadWithin(t, func() *Result { return LoadOnce(p) }, fifo)
	want := `spec.discord.botToken.fromFile: Invalid value: "token": is not a regular file (a named pipe)`
	if got := issueStrings(res.Errors); !strings.Contains(got, want) {
		t.Errorf("errors %q, want %q", got, want)
	}
}

// A link swapped in for a file the loader trusts unchanged is looked at
// again and refused, even when it leads to that very inode: the reload's
// quick look does not follow it either.
func TestSpecFileSwappedForLinkToItself(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	p := writeFile(t, dir, "daemons.yaml", discordDoc("discord", ""))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "real.yaml")
	if err := os.Link(p, target); err != nil {
		t.Fatal(err)
	}
	l := NewLoader(p)
	if res := l.Load(); !res.Valid() {
		t.Fatal(issueStrings(res.Errors))
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	want := p + ": not a regular file (a symbolic link)"
	if res := l.Load(); res.Valid() || !strings.Contains(issueStrings(res.Errors), want) {
		t.Errorf("valid=%v errors %q, want %q", res.Valid(), issueStrings(res.Errors), want)
	}
}
