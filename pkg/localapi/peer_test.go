package localapi

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/go-logr/logr"
)

func TestDecidePeer(t *testing.T) {
	cases := []struct {
		name    string
		peer    Peer
		credErr error
		uid     int
		refused string // "" when answered
	}{
		{"the loop's uid", Peer{UID: 1000, PID: 7}, nil, 1000, ""},
		{"root, when the loop is root", Peer{UID: 0}, nil, 0, ""},
		{"another uid", Peer{UID: 1001, PID: 7}, nil, 1000, "answers only uid 1000, and the peer is uid 1001"},
		{"root, when the loop is not", Peer{UID: 0, PID: 1}, nil, 1000, "answers only uid 1000, and the peer is uid 0"},
		{"a user, when the loop is root", Peer{UID: 1000}, nil, 0, "answers only uid 0"},
		{"credentials unreadable", Peer{}, errors.New("EINVAL"), 0, "credentials could not be read"},
	}
	for _, c := range cases {
		err := decidePeer(c.peer, c.credErr, c.uid)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s: %v, want refused with %q", c.name, err, c.refused)
		}
	}
}

// The kernel's word on the peer reaches the decision: a server told that
// the loop's uid is another refuses this real connection, before any
// endpoint runs.
func TestServerRefusesAnotherUID(t *testing.T) {
	b := &fakeBackend{}
	s := NewServer(b, logr.Discard())
	s.uid = os.Getuid() + 1
	dir := serveOn(t, s)
	_, err := NewClient(dir).Status(t.Context(), StatusRequest{})
	if err == nil || !strings.Contains(err.Error(), "refused: this loop answers only uid") || exitCodeOf(err) != exitFailed {
		t.Fatalf("status from another uid: %v (exit %d), want refused, exit 1", err, exitCodeOf(err))
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend answered %d refused requests", n)
	}
}

// The same connection from the loop's uid is answered, with the peer's pid.
func TestPeerOfRealConnection(t *testing.T) {
	b := &fakeBackend{}
	dir := serveOn(t, NewServer(b, logr.Discard()))
	if _, err := NewClient(dir).Status(t.Context(), StatusRequest{}); err != nil {
		t.Fatal(err)
	}
	if b.calls.Load() != 1 {
		t.Error("not answered")
	}
}

// The client holds the server to the same rule: a socket in the agent dir
// that another uid serves (a dir someone else can write, a command run as
// root on a user's dir) is not this user's loop. Its answer is never
// trusted, and nothing is sent to it.
func TestClientRefusesAServerOfAnotherUID(t *testing.T) {
	b := &fakeBackend{}
	dir := serveOn(t, NewServer(b, logr.Discard()))
	c := NewClient(dir)
	c.uid = os.Getuid() + 1
	_, err := c.Status(t.Context(), StatusRequest{})
	if err == nil || errors.Is(err, ErrNoLoop) || !strings.Contains(err.Error(), fmt.Sprintf("served by uid %d", os.Getuid())) {
		t.Fatalf("status from a server of another uid: %v, want refused, naming its uid", err)
	}
	if err := c.Answering(t.Context()); err == nil {
		t.Error("Answering: a server of another uid counts as this user's loop")
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("%d requests were sent to a server of another uid", n)
	}
}
