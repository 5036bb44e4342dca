package metrics

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/reconcile"
)

// A daemon whose owner read its logins exports them; one that did not
// exports none (unknown, not zero), nor one whose window has ended.
func TestLoginsValues(t *testing.T) {
	later, earlier := metav1.NewTime(time.Now().Add(time.Hour)), metav1.NewTime(time.Now().Add(-time.Minute))
	m := New()
	m.Status(reconcile.PassResult{Status: &reconcile.Status{Version: 1, SpecValid: true, Daemons: []reconcile.DaemonStatus{
		{Name: "d", Provider: "discord", DesiredState: "Running", Phase: reconcile.PhaseRunning, Logins: &reconcile.LoginsStatus{Used: 12, Limit: 1000, ResetAt: &later}},
		{Name: "old", Provider: "discord", DesiredState: "Running", Phase: reconcile.PhaseRunning, Logins: &reconcile.LoginsStatus{Used: 941, Limit: 1000, ResetAt: &earlier}},
		{Name: "s", Provider: "slack", DesiredState: "Running", Phase: reconcile.PhaseRunning},
	}}})
	families := gather(t, m)
	for name, want := range map[string]float64{NameLogins: 12, NameLoginsLimit: 1000} {
		if got, ok := value(families[name], "name=d,provider=discord"); !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
		if _, ok := value(families[name], "name=s,provider=slack"); ok {
			t.Errorf("%s exported for a daemon that read no logins", name)
		}
		if _, ok := value(families[name], "name=old,provider=discord"); ok {
			t.Errorf("%s exported from a window that has ended", name)
		}
	}
}
