package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"gjc.dev/reconciler/pkg/reconcile"
)

// The bot's logins as its service counts them (Discord's session starts),
// per daemon whose owner read them: none otherwise, unknown, not zero.
const (
	NameLogins      = "reconciler_daemon_logins"
	NameLoginsLimit = "reconciler_daemon_logins_limit"
)

var (
	loginsDesc      = prometheus.NewDesc(NameLogins, "Logins (Discord session starts) the service counts for the bot in its current window, as the owner last read them.", daemonLabels, nil)
	loginsLimitDesc = prometheus.NewDesc(NameLoginsLimit, "Logins the service allows the bot in its window; past it, Discord resets the token.", daemonLabels, nil)
	loginsDescs     = []*prometheus.Desc{loginsDesc, loginsLimitDesc}
)

// loginsMetrics are d's logins series at now; none once the window they
// were counted in has ended, since what was spent then no longer counts.
func loginsMetrics(d reconcile.DaemonStatus, now time.Time) []prometheus.Metric {
	l := d.Logins
	if l == nil || l.ResetAt == nil || !now.Before(l.ResetAt.Time) {
		return nil
	}
	return []prometheus.Metric{
		prometheus.MustNewConstMetric(loginsDesc, prometheus.GaugeValue, float64(l.Used), d.Name, d.Provider),
		prometheus.MustNewConstMetric(loginsLimitDesc, prometheus.GaugeValue, float64(l.Limit), d.Name, d.Provider),
	}
}
