// Package metrics exports what the reconcile loop does as Prometheus
// metrics (DESIGN section 8), on a registry of its own. It is fed through
// reconcile.Hooks and LoopOptions.OnStatus: pkg/reconcile knows nothing of
// Prometheus.
//
// Every label is bounded: daemon names come from the spec (validated
// names), providers, phases, results, triggers and restart reasons from
// fixed sets. No message, error or other free text becomes a label.
package metrics

import (
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"gjc.dev/reconciler/pkg/reconcile"
)

// The metrics' names: the contract with dashboards and alerts.
const (
	NamePasses            = "reconciler_reconcile_passes_total"
	NamePassDuration      = "reconciler_reconcile_duration_seconds"
	NameReconciles        = "reconciler_daemon_reconciles_total"
	NameReconcileDuration = "reconciler_daemon_reconcile_duration_seconds"
	NameRestarts          = "reconciler_daemon_restarts_total"
	NameWakes             = "reconciler_loop_wakes_total"
	NameDaemons           = "reconciler_daemons"
	NameReady             = "reconciler_daemon_ready"
	NameSpecValid         = "reconciler_spec_valid"
)

// Values of the result label.
const (
	ResultConverged    = "converged"
	ResultNotConverged = "not_converged"
	// ResultUnmanaged: a name another controller owns, only looked at.
	ResultUnmanaged = "unmanaged"
)

// Other stands for a value outside a label's fixed set, should a caller
// ever pass one: the series stay bounded whatever it passes.
const Other = "Other"

// durationBuckets span a look that changes nothing (milliseconds) to a
// stop-and-replace that waits gracefulTimeout, killTimeout and then
// readyTimeout (minutes at most).
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// Metrics are the loop's metrics and the registry that serves them.
type Metrics struct {
	reg               *prometheus.Registry
	passes            *prometheus.CounterVec
	passDuration      prometheus.Histogram
	reconciles        *prometheus.CounterVec
	reconcileDuration prometheus.Histogram
	restarts          *prometheus.CounterVec
	wakes             *prometheus.CounterVec
	status            *statusCollector
}

// New registers the loop's metrics, and the Go runtime's and the process's:
// the loop holds a process reference (a pidfd) per owner, a file watch per
// daemon dir and a goroutine per watch, so open fds and goroutines that
// grow with time are a leak an operator can see here first, and the
// process start time tells a restarted loop from one whose counters reset.
func New() *Metrics {
	m := &Metrics{
		// Pedantic: every scrape checks that what the status collector
		// sends matches what it described.
		reg: prometheus.NewPedanticRegistry(),
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NamePasses,
			Help: "Full reconcile passes (every name at once: the loop's first pass), by whether they converged.",
		}, []string{"result"}),
		passDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    NamePassDuration,
			Help:    "How long full reconcile passes took, bounded ready waits included: the first one is what stands between a start and READY=1.",
			Buckets: durationBuckets,
		}),
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameReconciles,
			Help: "Reconciles of one daemon name (inside a full pass or on a trigger), by outcome.",
		}, []string{"result"}),
		reconcileDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    NameReconcileDuration,
			Help:    "How long reconciles of one daemon name took, stops and ready waits included.",
			Buckets: durationBuckets,
		}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameRestarts,
			Help: "Restarts of a daemon (as status.json counts them), by why: Crashed, Released, ExitedBeforeReady.",
		}, []string{"name", "reason"}),
		wakes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameWakes,
			Help: "What woke the loop, by trigger; an idle loop wakes only for daemon heartbeats and resyncs.",
		}, []string{"trigger"}),
		status: newStatusCollector(),
	}
	// Each fixed label value starts at zero, so a rate over the first
	// increment is not lost and a dashboard shows every series at once.
	for _, r := range []string{ResultConverged, ResultNotConverged} {
		m.passes.WithLabelValues(r)
	}
	for _, r := range []string{ResultConverged, ResultNotConverged, ResultUnmanaged} {
		m.reconciles.WithLabelValues(r)
	}
	for _, t := range reconcile.Triggers {
		m.wakes.WithLabelValues(t)
	}
	m.reg.MustRegister(m.passes, m.passDuration, m.reconciles, m.reconcileDuration, m.restarts, m.wakes, m.status,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Gatherer is the registry, for tests and for a handler of one's own.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// Handler serves the registry in Prometheus' exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Hooks feed the metrics from the reconciler and its loop.
func (m *Metrics) Hooks() reconcile.Hooks {
	return reconcile.Hooks{
		Passed: func(p reconcile.PassResult, took time.Duration) {
			m.passes.WithLabelValues(passResult(p)).Inc()
			m.passDuration.Observe(took.Seconds())
		},
		Reconciled: func(_ string, out reconcile.Outcome, took time.Duration) {
			m.reconciles.WithLabelValues(outcomeResult(out)).Inc()
			m.reconcileDuration.Observe(took.Seconds())
		},
		Restarted: func(name, reason string) {
			m.restarts.WithLabelValues(name, bounded(reason, reconcile.RestartReasons)).Inc()
		},
		Woke: func(trigger string) {
			m.wakes.WithLabelValues(bounded(trigger, reconcile.Triggers)).Inc()
		},
	}
}

// Status takes what status.json now says (LoopOptions.OnStatus): the
// gauges follow it, and each daemon of the spec gets its restart series
// (at zero until it restarts); a name gone from the spec loses them.
func (m *Metrics) Status(p reconcile.PassResult) {
	if p.Status == nil {
		return
	}
	gone := m.status.set(p.Status)
	for _, name := range gone {
		m.restarts.DeletePartialMatch(prometheus.Labels{"name": name})
	}
	for _, d := range p.Status.Daemons {
		if inSpec(d) {
			for _, r := range reconcile.RestartReasons {
				m.restarts.WithLabelValues(d.Name, r)
			}
		}
	}
}

func passResult(p reconcile.PassResult) string {
	if p.Converged {
		return ResultConverged
	}
	return ResultNotConverged
}

func outcomeResult(out reconcile.Outcome) string {
	switch {
	case out.Status.Phase == reconcile.PhaseUnmanaged:
		return ResultUnmanaged
	case out.Status.Converged:
		return ResultConverged
	}
	return ResultNotConverged
}

// bounded keeps a label value to its fixed set.
func bounded(v string, known []string) string {
	if slices.Contains(known, v) {
		return v
	}
	return Other
}
