package atomicfile_test

import (
	"os/exec"
	"strings"
	"testing"
)

// atomicfile is a leaf: any package may keep its files with it (pkg/reconcile
// among them, which must not reach pkg/platform), so it imports nothing of
// this module, directly or not.
func TestImportsNothingOfOurs(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, "gjc.dev/") && imp != "gjc.dev/reconciler/pkg/atomicfile" {
			t.Errorf("pkg/atomicfile depends on %s", imp)
		}
	}
}
