package metrics

import (
	"time"

	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"

	"gjc.dev/reconciler/pkg/reconcile"
)

var (
	specValidDesc = prometheus.NewDesc(NameSpecValid,
		"1 if every spec source is valid, 0 if the loop runs on last known good objects.", nil, nil)
	daemonsDesc = prometheus.NewDesc(NameDaemons,
		"Names in status.json by observed phase (Unmanaged: another controller's).", []string{"phase"}, nil)
	readyDesc = prometheus.NewDesc(NameReady,
		"1 if the daemon's Ready condition is True, 0 otherwise; one series per daemon of the spec.", []string{"name", "provider"}, nil)
)

// daemonSeries are the series each daemon of the spec has, read from its
// status. The relay's figures (relay.go) are sent beside them, only for a
// daemon whose owner publishes them.
var daemonSeries = []struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(reconcile.DaemonStatus) float64
}{
	{readyDesc, prometheus.GaugeValue, func(d reconcile.DaemonStatus) float64 {
		return boolValue(meta.IsStatusConditionTrue(d.Conditions, reconcile.ConditionReady))
	}},
}

// phases are the phase label's values.
var phases = func() []string {
	var out []string
	for _, p := range reconcile.Phases {
		out = append(out, string(p))
	}
	return out
}()

// statusCollector sends the gauges that describe the last status.json.
// Before the first status it sends none of them: nothing is known yet,
// which is not the same as zero.
type statusCollector struct {
	mu     sync.Mutex
	status *reconcile.Status
	names  map[string]bool // the daemons of the spec in status
}

func newStatusCollector() *statusCollector { return &statusCollector{names: map[string]bool{}} }

// set keeps s (the loop never changes a status once it is handed on) and
// returns the names that were daemons of the spec and no longer are.
func (c *statusCollector) set(s *reconcile.Status) (gone []string) {
	names := map[string]bool{}
	for _, d := range s.Daemons {
		if inSpec(d) {
			names[d.Name] = true
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for n := range c.names {
		if !names[n] {
			gone = append(gone, n)
		}
	}
	c.status, c.names = s, names
	return gone
}

func (c *statusCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- specValidDesc
	ch <- daemonsDesc
	for _, s := range daemonSeries {
		ch <- s.desc
	}
	for _, d := range relayDescs {
		ch <- d
	}
	for _, d := range loginsDescs {
		ch <- d
	}
}

func (c *statusCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	s := c.status
	c.mu.Unlock()
	if s == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(specValidDesc, prometheus.GaugeValue, boolValue(s.SpecValid))
	// Every phase is sent, at zero when no name is in it, so "none in
	// CrashLoopBackOff" is a series and not an absence.
	byPhase := map[string]int{}
	for _, p := range phases {
		byPhase[p] = 0
	}
	for _, d := range s.Daemons {
		byPhase[bounded(string(d.Phase), phases)]++
	}
	for p, n := range byPhase {
		ch <- prometheus.MustNewConstMetric(daemonsDesc, prometheus.GaugeValue, float64(n), p)
	}
	for _, d := range s.Daemons {
		if !inSpec(d) {
			continue
		}
		for _, series := range daemonSeries {
			ch <- prometheus.MustNewConstMetric(series.desc, series.kind, series.value(d), d.Name, d.Provider)
		}
		for _, m := range relayMetrics(d) { // relay.go
			ch <- m
		}
		for _, m := range loginsMetrics(d, time.Now()) { // logins.go
			ch <- m
		}
	}
}

// inSpec tells a daemon of the spec from a name that is only on disk (an
// Unmanaged one, or one being pruned).
func inSpec(d reconcile.DaemonStatus) bool { return d.DesiredState != "" }

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
