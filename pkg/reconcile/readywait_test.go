package reconcile

import (
	"context"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
)

// deafStore's watches never fire, as an inotify watch left on a removed
// dir does once the daemon re-created it.
type deafStore struct{ ownership.Store }

func (deafStore) Watch(string) (<-chan struct{}, func(), error) {
	return make(chan struct{}), func() {}, nil
}

// A wait for readiness whose watch says nothing still sees the owner
// become healthy, by looking again: not at the end of readyTimeout.
func TestReadyWaitLooksAgainWithoutItsWatch(t *testing.T) {
	w := fakestore.New()
	r := fakeReconciler(t, deafStore{w.Store()})
	looked := make(chan struct{}, 1)
	r.opts.Progress = func(p Progress) {
		if p.Wait == WaitReady {
			select {
			case looked <- struct{}{}:
			default:
			}
		}
	}
	d := slackDaemon(time.Second)
	d.Config.ReadyTimeout = 20 * time.Second
	type result struct {
		rec ownership.Record
		err error
	}
	done := make(chan result, 1)
	go func() {
		rec, _, err := r.waitOwnerHealthy(context.Background(), d, ownership.PathsFor(fakestore.AgentDir, "bot"), "o-new", nil)
		done <- result{rec, err}
	}()
	// Healthy only after the wait's first look, which found no record.
	select {
	case <-looked:
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not look within 10s")
	}
	if _, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 1}, fakestore.OwnerOptions{OwnerID: "o-new"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := <-done
	if res.err != nil {
		t.Fatalf("the wait ended after %v without seeing the healthy owner: %v", time.Since(start).Round(time.Millisecond), res.err)
	}
	if res.rec.State == nil || res.rec.State.OwnerID != "o-new" {
		t.Fatalf("the wait returned %+v, want o-new's record", res.rec.State)
	}
}
