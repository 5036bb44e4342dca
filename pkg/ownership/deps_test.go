package ownership_test

import (
	"os/exec"
	"strings"
	"testing"
)

// A backend stores records; it does not define them. So neither backend
// links the other (what both need of one machine's agent dir is in
// internal/agentdir), and none links the relay engine or inbound for the
// words a record carries (this package declares them). Checked over every
// package each backend depends on, directly or not.
func TestBackendsImportNeitherEachOtherNorTheRelay(t *testing.T) {
	const mod = "gjc.dev/reconciler/pkg/"
	forbidden := map[string][]string{
		"ownership/fsstore":   {"ownership/etcdstore", "ownership/fakestore", "relay", "inbound"},
		"ownership/etcdstore": {"ownership/fsstore", "ownership/fakestore", "relay", "inbound"},
		"ownership/fakestore": {"ownership/fsstore", "ownership/etcdstore", "relay", "inbound"},
		"ownership":           {"platform", "relay", "inbound"},
	}
	for pkg, not := range forbidden {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		for _, n := range not {
			for _, d := range deps {
				if d == mod+n {
					t.Errorf("pkg/%s depends on pkg/%s", pkg, n)
				}
			}
		}
	}
}
