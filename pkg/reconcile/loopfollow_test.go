package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
)

// stuckWatchStore is a store whose watches are not set up until released:
// a cluster cut off just as the loop asks (its client blocks until the
// request's bound, or for ever).
type stuckWatchStore struct {
	ownership.Store
	asked   chan struct{}
	release chan struct{}
}

func (s stuckWatchStore) Watch(name string) (<-chan struct{}, func(), error) {
	select {
	case s.asked <- struct{}{}:
	default:
	}
	<-s.release
	return s.Store.Watch(name)
}

// The loop's status answers while the loop waits for the store to set up
// a watch: follow asks the store without the loop's own lock, which the
// status read takes. (With Debian's etcd, a machine cut off just after its
// first pass answered status only after the 30 s read bound.)
func TestLoopStatusAnswersWhileAWatchIsSetUp(t *testing.T) {
	t.Setenv("LOOPAPI_TEST_BOT", "xoxb-1")
	t.Setenv("LOOPAPI_TEST_APP", "xapp-1")
	s := stuckWatchStore{Store: fakestore.New().Store(), asked: make(chan struct{}, 1), release: make(chan struct{})}
	r := fakeReconciler(t, s)
	specPath := filepath.Join(r.opts.AgentDir, "daemons.yaml")
	if err := os.WriteFile(specPath, []byte(stoppedBotSpec), 0o600); err != nil {
		t.Fatal(err)
	}
	l := NewLoop(r, LoopOptions{SpecPath: specPath, LockTimeout: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	t.Cleanup(func() { close(s.release) })
	<-s.asked
	type answer struct {
		st  *Status
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		st, err := l.View(t.Context(), nil)
		answered <- answer{st, err}
	}()
	select {
	case a := <-answered:
		if a.err != nil || len(a.st.Daemons) != 1 {
			t.Fatalf("status while a watch is set up: %+v, %v; want bot's", a.st, a.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("status did not answer within 5 s while the loop waited for a watch to be set up")
	}
}
