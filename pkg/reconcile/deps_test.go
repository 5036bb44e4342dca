package reconcile

import (
	"os/exec"
	"strings"
	"testing"
)

// The reconciler decides; proving a process and acting on it is the
// store's job. So this package asks ownership.Store and never reaches for
// the platform's primitives, or for the one-machine store, itself: the
// same loop must run over a fleet's store.
func TestReconcileImportsNoPlatform(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, imp := range strings.Fields(string(out)) {
		switch imp {
		case "gjc.dev/reconciler/pkg/platform", "gjc.dev/reconciler/pkg/ownership/fsstore", "golang.org/x/sys/unix":
			t.Errorf("pkg/reconcile imports %s; ask the ownership.Store (or Files) instead", imp)
		}
	}
}
