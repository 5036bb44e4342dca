package reconcile

import (
	"os/exec"
	"strings"
	"testing"
)

// The reconciler decides; proving a process and acting on it is the
// store's job. So this package asks ownership.Store and never reaches for
// the platform's primitives, or for the one-machine store, itself: the
// same loop must run over a fleet's store. Checked over every package it
// depends on, directly or not. (golang.org/x/sys/unix comes in with
// fsnotify, for the file watches; this package calls none of it.)
func TestReconcileImportsNoPlatform(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, imp := range strings.Fields(string(out)) {
		switch imp {
		case "gjc.dev/reconciler/pkg/platform", "gjc.dev/reconciler/pkg/ownership/fsstore":
			t.Errorf("pkg/reconcile depends on %s; ask the ownership.Store (and keep files with pkg/atomicfile) instead", imp)
		}
		// Metrics are fed through Hooks and OnStatus; how they are
		// exported is pkg/metrics' business.
		if strings.HasPrefix(imp, "github.com/prometheus/") {
			t.Errorf("pkg/reconcile depends on %s; feed pkg/metrics through Hooks instead", imp)
		}
	}
}
