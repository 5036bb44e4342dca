package daemonproto

import "testing"

// Each exit code means one thing: a code shared by two outcomes would make
// the daemon's log and the reconciler's messages lie about one of them.
func TestExitCodesAreDistinctAndExplained(t *testing.T) {
	codes := []int{ExitStopped, ExitFailed, ExitUsage, ExitHeld, ExitLost, ExitTerminal}
	seen := map[int]bool{}
	meanings := map[string]int{}
	for _, c := range codes {
		if seen[c] {
			t.Errorf("exit code %d is used twice", c)
		}
		seen[c] = true
		m := ExitMeaning(c)
		if prev, ok := meanings[m]; ok {
			t.Errorf("exit codes %d and %d both mean %q", prev, c, m)
		}
		meanings[m] = c
		if m == ExitMeaning(99) {
			t.Errorf("exit code %d has no meaning", c)
		}
	}
}
