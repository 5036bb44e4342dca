package systemtest

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// A loop run with -v spawns its daemons at the same verbosity, so what a
// relay does (logged at V(1)) reaches daemon.log when asked for.
func TestDaemonsInheritTheLoopsVerbosity(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	e.mustConverge("-v", "1")
	s := e.state("slack")
	argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.PID))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(argv, []byte("\x00-v\x001\x00")) && !bytes.HasSuffix(argv, []byte("\x00-v\x001")) {
		t.Fatalf("the daemon's argv does not carry -v 1: %q", bytes.ReplaceAll(argv, []byte{0}, []byte{' '}))
	}
}
