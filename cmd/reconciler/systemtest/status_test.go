package systemtest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
)

func TestStatusCommand(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.mustConverge()

	r := runBinary(t, e.env, "status", "--agent-dir", e.agentDir)
	if r.code != 0 {
		t.Fatalf("status: exit %d, %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "NAME PROVIDER DESIRED PHASE GEN PID READY RESTARTS AGE REASON" {
		t.Fatalf("table:\n%s", r.stdout)
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if f[3] != "Running" || f[6] != "True" {
			t.Errorf("row %q: want Running and READY True", l)
		}
	}

	// Live: a daemon killed since the last pass shows as stopped, not Running.
	st := e.state("slack")
	exited := watchExit(t, st)
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	r = runBinary(t, e.env, "status", "slack", "-o", "json", "--agent-dir", e.agentDir)
	var got reconcile.Status
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got.Daemons) != 1 {
		t.Fatalf("json output %q: %v", r.stdout, err)
	}
	if d := got.Daemons[0]; d.Name != "slack" || d.Phase != reconcile.PhaseStopped || d.PID != 0 {
		t.Errorf("killed daemon shows as %+v", d)
	}
	if r := runBinary(t, e.env, "status", "-o", "xml", "--agent-dir", e.agentDir); r.code != 2 {
		t.Errorf("-o xml: exit %d, want 2", r.code)
	}
}

// status's live look never shows a record it cannot trust as Stopped or
// Ready: not before any pass has run, and not when the record turned
// malformed after a healthy pass.
func TestStatusRefusesAnUntrustedRecord(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	malformed := func(name string) {
		p := e.paths(name)
		if err := os.MkdirAll(p.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		// A record that names a live process (this test) without the rest.
		rec := fmt.Sprintf(`{"version":1,"kind":"slack","pid":%d}`, os.Getpid())
		if err := os.WriteFile(p.State, []byte(rec), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	look := func(name string) reconcile.DaemonStatus {
		t.Helper()
		r := runBinary(t, e.env, "status", name, "-o", "json", "--agent-dir", e.agentDir)
		var got reconcile.Status
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got.Daemons) != 1 {
			t.Fatalf("status %s: %q, %v (stderr %s)", name, r.stdout, err, r.stderr)
		}
		return got.Daemons[0]
	}
	ready := func(d reconcile.DaemonStatus) metav1.ConditionStatus {
		if c := meta.FindStatusCondition(d.Conditions, reconcile.ConditionReady); c != nil {
			return c.Status
		}
		return metav1.ConditionUnknown
	}

	malformed("other") // no pass has ever looked at it
	if d := look("other"); d.Phase != reconcile.PhaseRefused || d.Reason != ownership.ReasonMalformedOwnerRecord || ready(d) == metav1.ConditionTrue {
		t.Errorf("a malformed record before any pass shows as %s %s Ready=%s; want Refused %s", d.Phase, d.Reason, ready(d), ownership.ReasonMalformedOwnerRecord)
	}

	e.mustConverge()
	if d := look("slack"); d.Phase != reconcile.PhaseRunning || ready(d) != metav1.ConditionTrue {
		t.Fatalf("converged slack shows as %s Ready=%s", d.Phase, ready(d))
	}
	malformed("slack") // turned malformed after a healthy pass
	if d := look("slack"); d.Phase != reconcile.PhaseRefused || d.Converged || ready(d) == metav1.ConditionTrue {
		t.Errorf("a record malformed since the last pass shows as %s converged=%v Ready=%s; want Refused, not Ready", d.Phase, d.Converged, ready(d))
	}
}
