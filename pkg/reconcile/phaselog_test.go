package reconcile

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

// A refusal begins with an error-level line, so `journalctl -p err` (and
// any level filter) finds it; a steady name logs nothing more.
func TestRefusalIsLoggedAtErrorLevel(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	log := funcr.NewJSON(func(obj string) {
		mu.Lock()
		lines = append(lines, obj)
		mu.Unlock()
	}, funcr.Options{})
	w := fakestore.New()
	r, err := New(Options{AgentDir: privateAgentDir(t), Executable: "/bin/false", Log: log, Store: w.Store()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	d := slackDaemon(100 * time.Millisecond)
	if _, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 2}, fakestore.OwnerOptions{}); err != nil {
		t.Fatal(err)
	}
	w.Advance(ownership.HeartbeatTTL + 10*time.Second)
	res := &spec.Result{Daemons: []*spec.Daemon{d}}
	for range 2 {
		if out := r.Reconcile(context.Background(), "bot", d, res); out.Status.Phase != PhaseRefused {
			t.Fatalf("phase %s %s, want Refused", out.Status.Phase, out.Status.Reason)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var errs int
	for _, l := range lines {
		if strings.Contains(l, `"msg":"daemon phase"`) && strings.Contains(l, `"error":`) {
			errs++
		}
	}
	if errs != 1 {
		t.Errorf("%d error-level phase lines, want 1 (the change to Refused only):\n%s", errs, strings.Join(lines, "\n"))
	}
}
