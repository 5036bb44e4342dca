package metrics

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/reconcile"
)

// status is a loop's status.json with every kind of name: a ready daemon,
// one in a crash loop, one held by an operator, one being pruned (no longer
// in the spec) and another controller's.
func status(specValid bool) *reconcile.Status {
	ready := func(s metav1.ConditionStatus) []metav1.Condition {
		return []metav1.Condition{{Type: reconcile.ConditionReady, Status: s, Reason: "X"}}
	}
	return &reconcile.Status{Version: 1, SpecValid: specValid, Daemons: []reconcile.DaemonStatus{
		{Name: "discord", Provider: "discord", DesiredState: "Running", Phase: reconcile.PhaseRunning, Converged: true, Conditions: ready(metav1.ConditionTrue),
			Relay: &reconcile.RelayStatus{Pending: 3, Failed: 1, Posted: 40, PostSeconds: 6.5, RateLimitWaits: 2}},
		{Name: "slack", Provider: "slack", DesiredState: "Running", Phase: reconcile.PhaseCrashLoopBackOff, Restarts: 2, Conditions: ready(metav1.ConditionFalse)},
		{Name: "quiet", Provider: "slack", DesiredState: "Running", Phase: reconcile.PhaseHeld, Converged: true, Conditions: ready(metav1.ConditionFalse)},
		{Name: "old", Phase: reconcile.PhaseStopped, Converged: true},
		{Name: "theirs", Phase: reconcile.PhaseUnmanaged},
	}}
}

// feed runs the hooks as a loop would: a first pass of every name, wakes,
// restarts, then the status write.
func feed(m *Metrics) {
	h := m.Hooks()
	st := status(true)
	for _, d := range st.Daemons {
		h.Reconciled(d.Name, reconcile.Outcome{Status: d}, 30*time.Millisecond)
	}
	h.Passed(reconcile.PassResult{Status: st}, 2*time.Second)
	h.Woke(reconcile.TriggerOwnerExit)
	h.Woke(reconcile.TriggerDaemonDir)
	h.Woke(reconcile.TriggerDaemonDir)
	h.Restarted("slack", reconcile.RestartCrashed)
	h.Restarted("slack", reconcile.RestartExitedBeforeReady)
	m.Status(reconcile.PassResult{Status: st})
}

// The exposition, as a scrape sees it, passes the linter that promtool's
// `check metrics` runs, with no problem at all.
func TestExpositionLints(t *testing.T) {
	m := New()
	feed(m)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", "text/plain") // what promtool reads
	m.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	if !strings.Contains(body, NameReady+`{name="discord",provider="discord"} 1`) {
		t.Fatalf("exposition lacks the ready series:\n%s", body)
	}
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// The names and label names are the contract with dashboards: exactly
// these, and nothing of ours beside them.
func TestNamesAndLabels(t *testing.T) {
	m := New()
	feed(m)
	families := gather(t, m)
	want := map[string][]string{
		"reconciler_reconcile_passes_total":            {"result"},
		"reconciler_reconcile_duration_seconds":        nil,
		"reconciler_daemon_reconciles_total":           {"result"},
		"reconciler_daemon_reconcile_duration_seconds": nil,
		"reconciler_daemon_restarts_total":             {"name", "reason"},
		"reconciler_loop_wakes_total":                  {"trigger"},
		"reconciler_daemons":                           {"phase"},
		"reconciler_daemon_ready":                      {"name", "provider"},
		"reconciler_spec_valid":                        nil,
		"reconciler_relay_pending":                     {"name", "provider"},
		"reconciler_relay_failed":                      {"name", "provider"},
		"reconciler_relay_blocked":                     {"name", "provider", "reason"},
		"reconciler_relay_posted_total":                {"name", "provider"},
		"reconciler_relay_filtered_total":              {"name", "provider"},
		"reconciler_relay_rate_limit_waits_total":      {"name", "provider"},
		"reconciler_relay_post_seconds":                {"name", "provider"},
		"reconciler_asks_open":                         {"name", "provider"},
		"reconciler_asks_decided_total":                {"name", "provider"},
		"reconciler_asks_expired_total":                {"name", "provider"},
		"reconciler_ask_clicks_refused_total":          {"name", "provider"},
	}
	got := map[string][]string{}
	for name, mf := range families {
		if !strings.HasPrefix(name, "reconciler_") {
			continue
		}
		labels := map[string]bool{}
		for _, s := range mf.GetMetric() {
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = true
			}
		}
		got[name] = slices.Sorted(maps.Keys(labels))
	}
	for name, labels := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: missing", name)
		} else if !slices.Equal(g, labels) {
			t.Errorf("%s: labels %v, want %v", name, g, labels)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: not in the contract", name)
		}
	}
	// The runtime's and the process's own, for leaks of goroutines and fds.
	for _, name := range []string{"go_goroutines", "process_start_time_seconds"} {
		if _, ok := families[name]; !ok {
			t.Errorf("%s: missing", name)
		}
	}
}

// The values follow the hooks and the last status; a daemon of the spec
// is ready only when its Ready condition is True.
func TestValues(t *testing.T) {
	m := New()
	feed(m)
	families := gather(t, m)
	for _, c := range []struct {
		name   string
		labels string
		want   float64
	}{
		{NameSpecValid, "", 1},
		{NameDaemons, "phase=Running", 1},
		{NameDaemons, "phase=CrashLoopBackOff", 1},
		{NameDaemons, "phase=Held", 1},
		{NameDaemons, "phase=Stopped", 1},
		{NameDaemons, "phase=Unmanaged", 1},
		{NameDaemons, "phase=Starting", 0},
		{NameReady, "name=discord,provider=discord", 1},
		{NameReady, "name=slack,provider=slack", 0},
		{NameReady, "name=quiet,provider=slack", 0},
		{NameRestarts, "name=slack,reason=Crashed", 1},
		{NameRestarts, "name=slack,reason=ExitedBeforeReady", 1},
		{NameRestarts, "name=slack,reason=Released", 0},
		{NameRestarts, "name=discord,reason=Crashed", 0},
		{NameWakes, "trigger=daemonDir", 2},
		{NameWakes, "trigger=ownerExit", 1},
		{NameWakes, "trigger=resync", 0},
		{NamePasses, "result=not_converged", 1},
		{NamePasses, "result=converged", 0},
		{NameReconciles, "result=converged", 3},
		{NameReconciles, "result=not_converged", 1},
		{NameReconciles, "result=unmanaged", 1},
	} {
		if got, ok := value(families[c.name], c.labels); !ok || got != c.want {
			t.Errorf("%s{%s} = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	// Names that are not daemons of the spec have no per-daemon series.
	for _, name := range []string{"old", "theirs"} {
		for _, metric := range []string{NameReady, NameRestarts} {
			for _, s := range families[metric].GetMetric() {
				if labelsOf(s)["name"] == name {
					t.Errorf("%s has a series for %s, which is not in the spec", metric, name)
				}
			}
		}
	}
	if h := families[NamePassDuration].GetMetric()[0].GetHistogram(); h.GetSampleCount() != 1 || h.GetSampleSum() != 2 {
		t.Errorf("pass duration: %d samples summing to %v, want one of 2s", h.GetSampleCount(), h.GetSampleSum())
	}
	if h := families[NameReconcileDuration].GetMetric()[0].GetHistogram(); h.GetSampleCount() != 5 {
		t.Errorf("reconcile duration: %d samples, want 5", h.GetSampleCount())
	}
}

// Before the first status nothing is known: the gauges are absent, not 0.
func TestNoGaugesBeforeStatus(t *testing.T) {
	families := gather(t, New())
	for _, name := range []string{NameSpecValid, NameDaemons, NameReady} {
		if _, ok := families[name]; ok {
			t.Errorf("%s sent before any status", name)
		}
	}
	if _, ok := value(families[NameWakes], "trigger=spec"); !ok {
		t.Errorf("%s{trigger=spec} should start at zero", NameWakes)
	}
}

// Labels stay bounded: a value outside a fixed set is Other, and a name
// that left the spec loses its series.
func TestLabelsBounded(t *testing.T) {
	m := New()
	feed(m)
	h := m.Hooks()
	h.Restarted("slack", "exit status 2: some free text")
	h.Woke("a new trigger")
	st := status(false)
	st.Daemons = slices.DeleteFunc(st.Daemons, func(d reconcile.DaemonStatus) bool { return d.Name == "slack" })
	st.Daemons = append(st.Daemons, reconcile.DaemonStatus{Name: "odd", Provider: "discord", DesiredState: "Running", Phase: "Sideways"})
	m.Status(reconcile.PassResult{Status: st})
	families := gather(t, m)
	if v, ok := value(families[NameWakes], "trigger=Other"); !ok || v != 1 {
		t.Errorf("an unknown trigger: %s{trigger=Other} = %v, %v", NameWakes, v, ok)
	}
	if v, ok := value(families[NameDaemons], "phase=Other"); !ok || v != 1 {
		t.Errorf("an unknown phase: %s{phase=Other} = %v, %v", NameDaemons, v, ok)
	}
	if v, ok := value(families[NameSpecValid], ""); !ok || v != 0 {
		t.Errorf("%s = %v, %v; want 0 for an invalid spec", NameSpecValid, v, ok)
	}
	for _, s := range families[NameRestarts].GetMetric() {
		l := labelsOf(s)
		if l["name"] == "slack" {
			t.Errorf("slack left the spec but keeps %s%v", NameRestarts, l)
		}
		if !slices.Contains(reconcile.RestartReasons, l["reason"]) {
			t.Errorf("%s has reason %q", NameRestarts, l["reason"])
		}
	}
	for _, mf := range families {
		for _, s := range mf.GetMetric() {
			for _, l := range s.GetLabel() {
				if strings.ContainsAny(l.GetValue(), " :") {
					t.Errorf("%s: label %s=%q is free text", mf.GetName(), l.GetName(), l.GetValue())
				}
			}
		}
	}
}

func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := m.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

func labelsOf(s *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range s.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// value finds the series with exactly these labels ("k=v,k=v").
func value(mf *dto.MetricFamily, labels string) (float64, bool) {
	want := map[string]string{}
	if labels != "" {
		for kv := range strings.SplitSeq(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			want[k] = v
		}
	}
	for _, s := range mf.GetMetric() {
		if !maps.Equal(labelsOf(s), want) {
			continue
		}
		switch {
		case s.Counter != nil:
			return s.Counter.GetValue(), true
		case s.Gauge != nil:
			return s.Gauge.GetValue(), true
		}
	}
	return 0, false
}
