package systemtest

import (
	"strings"
	"testing"
)

// A test that needs a network namespace runs as root with ip; otherwise
// it skips, saying so loudly, or, where the namespace is required (CI),
// fails: a fleet chaos run that cannot run never passes as skipped there.
func TestNetnsVerdict(t *testing.T) {
	for _, tc := range []struct {
		name             string
		euid             int
		haveIP, required bool
		skip, fail       bool
	}{
		{"root with ip", 0, true, false, false, false},
		{"root with ip, required", 0, true, true, false, false},
		{"not root", 1000, true, false, true, false},
		{"not root, required", 1000, true, true, false, true},
		{"no ip", 0, false, false, true, false},
		{"no ip, required", 0, false, true, false, true},
	} {
		skip, fail := netnsVerdict(tc.euid, tc.haveIP, tc.required)
		if (skip != "") != tc.skip || (fail != "") != tc.fail {
			t.Errorf("%s: skip %q, fail %q; want skip %t, fail %t", tc.name, skip, fail, tc.skip, tc.fail)
		}
		if skip != "" && (!strings.HasPrefix(skip, "SKIPPED") || !strings.Contains(skip, RequireNetnsEnv)) {
			t.Errorf("%s: the skip %q is not loud, or does not say how CI makes it a failure", tc.name, skip)
		}
		if fail != "" && !strings.Contains(fail, RequireNetnsEnv) {
			t.Errorf("%s: the failure %q does not say what required it", tc.name, fail)
		}
	}
}
