package localapi

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/reconcile"
)

func TestDecideDir(t *testing.T) {
	loop := DirID{Path: "/home/ana/agent", Dev: 2049, Ino: 77}
	other := DirID{Path: "/home/ana/other", Dev: 2049, Ino: 78}
	// The same dir by another path (a link, a bind mount) is the same dir.
	linked := DirID{Path: "/mnt/agent", Dev: 2049, Ino: 77}
	weird := DirID{Path: "/tmp/a b&c=d\n/é", Dev: 1, Ino: 2}
	cases := []struct {
		name    string
		loop    DirID
		values  []string
		refused string // "" when acted on
	}{
		{"its own dir", loop, []string{loop.header()}, ""},
		{"its own dir by another path", loop, []string{linked.header()}, ""},
		{"any path survives the header", weird, []string{weird.header()}, ""},
		{"another dir", loop, []string{other.header()}, "serves the agent dir /home/ana/agent, and the request is for the agent dir /home/ana/other"},
		{"another device", loop, []string{DirID{Path: loop.Path, Dev: 2050, Ino: 77}.header()}, "the request is for the agent dir /home/ana/agent"},
		{"an old client naming none", loop, nil, "older than this loop"},
		{"two dirs", loop, []string{loop.header(), other.header()}, "names 2 agent dirs"},
		{"no inode", loop, []string{"path=%2Fa&dev=1"}, "want one ino"},
		{"a relative path", loop, []string{"path=a&dev=2049&ino=77"}, "not an absolute path"},
		{"not a number", loop, []string{"path=%2Fa&dev=x&ino=77"}, "dev"},
		{"a loop that does not know its dir", DirID{}, []string{loop.header()}, "does not know its own agent dir"},
	}
	for _, c := range cases {
		err := decideDir(c.loop, c.values)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "nothing was done")):
			t.Errorf("%s: %v, want refused with %q, nothing done", c.name, err, c.refused)
		}
	}
	if got, err := parseDirHeader(weird.header()); err != nil || got != weird {
		t.Errorf("round trip: %+v, %v; want %+v", got, err, weird)
	}
}

// linkedDir is a second agent dir whose sdk dir is a link to served's.
func linkedDir(t *testing.T, served string) string {
	t.Helper()
	other := agentDir(t)
	if err := os.RemoveAll(filepath.Join(other, "sdk")); err != nil {
		t.Fatal(err)
	}
	// A dir on the way to the socket is a link: api.sock itself is not.
	if err := os.Symlink(filepath.Join(served, "sdk"), filepath.Join(other, "sdk")); err != nil {
		t.Fatal(err)
	}
	return other
}

// A request reaches another agent dir's loop (a dir on the way to its
// socket is a link to the other dir's): that loop refuses it, naming both
// dirs, and its backend is never called.
func TestServerRefusesARequestForAnotherDir(t *testing.T) {
	b := &fakeBackend{}
	served := serveOn(t, NewServer(b, logr.Discard()))
	other := linkedDir(t, served)
	c := NewClient(other)
	if err := c.Answering(t.Context()); err != nil {
		t.Fatalf("the linked socket does not answer: %v", err)
	}
	_, err := c.Stop(t.Context(), StopRequest{Selection: reconcile.Selection{Names: []string{"d1"}}})
	realServed, _ := filepath.EvalSymlinks(served)
	realOther, _ := filepath.EvalSymlinks(other)
	if err == nil || errors.Is(err, ErrNoLoop) || ExitCode(err) != exitFailed ||
		!strings.Contains(err.Error(), "serves the agent dir "+realServed+", and the request is for the agent dir "+realOther) {
		t.Fatalf("stop for another dir: %v (exit %d), want refused naming both dirs, exit 1", err, ExitCode(err))
	}
	if _, err := c.Send(t.Context(), SendRequest{Name: "d1", Message: bus.Message{ID: "m1", Session: "s", Text: "hi"}}); err == nil {
		t.Fatal("send for another dir: answered")
	}
	// A request that names no dir (a client older than the loop) is
	// refused too.
	if code, e := postWith(t, served, http.MethodPost, PathStatus, []byte(`{}`), http.Header{}); code != http.StatusForbidden || !strings.Contains(e.Message, "older than this loop") {
		t.Errorf("a request naming no dir: %d %+v, want 403 and a word to upgrade", code, e)
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend answered %d requests for another dir", n)
	}
	// Its own dir's client is answered.
	if _, err := NewClient(served).Status(t.Context(), StatusRequest{}); err != nil || b.calls.Load() != 1 {
		t.Errorf("its own dir: %v", err)
	}
}

// api.sock itself a link to another dir's socket: the client sends it
// nothing, says so naming the path, and does not take it for no loop (a
// command must not act alone on its way past a link either).
func TestClientRefusesALinkedSocket(t *testing.T) {
	b := &fakeBackend{}
	served := serveOn(t, NewServer(b, logr.Discard()))
	other := agentDir(t)
	if err := os.Symlink(SocketPath(served), SocketPath(other)); err != nil {
		t.Fatal(err)
	}
	c := NewClient(other)
	want := "refused the socket " + SocketPath(other) + ": it is a symlink"
	if err := c.Answering(t.Context()); err == nil || errors.Is(err, ErrNoLoop) || !strings.Contains(err.Error(), want) {
		t.Errorf("Answering: %v, want %q", err, want)
	}
	_, err := c.Stop(t.Context(), StopRequest{Selection: reconcile.Selection{Names: []string{"d1"}}})
	if err == nil || errors.Is(err, ErrNoLoop) || !strings.Contains(err.Error(), want) {
		t.Errorf("stop: %v, want %q", err, want)
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("%d requests went through the link", n)
	}
}
