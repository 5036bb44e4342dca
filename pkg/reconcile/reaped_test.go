package reconcile

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

// reapTellingStore is a store whose holds outlive processes: it records
// each release it is told of, failing while fail is set.
type reapTellingStore struct {
	ownership.Store
	told []string
	fail error
}

func (s *reapTellingStore) ReleaseReaped(name, ownerID string, pid int) error {
	s.told = append(s.told, name+"/"+ownerID)
	return s.fail
}

// A spawn this reconciler reaped is released in the store before the
// look that judges its record, once; a store that does not answer is told
// again at the next look. A child still running is not.
func TestReapedChildIsReleasedBeforeTheLook(t *testing.T) {
	w := fakestore.New()
	s := &reapTellingStore{Store: w.Store(), fail: errors.New("etcd did not answer")}
	r := fakeReconciler(t, s)
	d := slackDaemon(100 * time.Millisecond)
	res := &spec.Result{Daemons: []*spec.Daemon{d}}
	c := &child{ownerID: "o-child", pid: 999999, done: make(chan struct{})}
	r.state("bot").child = c
	r.Reconcile(context.Background(), "bot", d, res)
	if len(s.told) != 0 {
		t.Fatalf("a running child was released: %v", s.told)
	}
	close(c.done)
	r.Reconcile(context.Background(), "bot", d, res)
	s.fail = nil
	r.state("bot").child = c // the attempts may have spawned; judge this one
	r.Reconcile(context.Background(), "bot", d, res)
	r.Reconcile(context.Background(), "bot", d, res)
	// Only this child's count: the attempts' own spawns are reaped too.
	ours := slices.DeleteFunc(slices.Clone(s.told), func(e string) bool { return e != "bot/o-child" })
	if len(ours) != 2 {
		t.Errorf("releases told: %v, want bot/o-child twice: once refused, once released, then never again", s.told)
	}
}
