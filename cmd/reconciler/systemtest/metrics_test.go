package systemtest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"gjc.dev/reconciler/pkg/reconcile"
)

// The loop serves its metrics on --metrics-addr: daemons by phase and ready
// per daemon follow status.json, a kill -9 shows as a Crashed restart, and
// the exposition a scrape gets lints clean.
func TestLoopMetrics(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1}, object{name: "slack", provider: "slack", generation: 1})
	loop := e.startLoop("--metrics-addr", "127.0.0.1:0")
	url := "http://" + metricsAddress(t, loop) + "/metrics"
	e.waitStatus("both ready", func(s *reconcile.Status) bool { return countReady(s) == 2 })

	waitMetrics(t, url, "both daemons Running and ready", func(m metricSet) bool {
		return m.is("reconciler_daemons", "phase=Running", 2) &&
			m.is("reconciler_daemon_ready", "name=discord,provider=discord", 1) &&
			m.is("reconciler_daemon_ready", "name=slack,provider=slack", 1) &&
			m.is("reconciler_spec_valid", "", 1) &&
			m.is("reconciler_daemon_restarts_total", "name=discord,reason=Crashed", 0)
	})
	body := scrape(t, url)
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	if got := parse(t, body).sum("reconciler_reconcile_passes_total"); got != 1 {
		t.Errorf("reconcile passes: %v, want the loop's one full pass", got)
	}

	killed := e.state("discord")
	if err := syscall.Kill(killed.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.waitStatus("discord respawned", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "discord")
		return d.Converged && d.OwnerID != killed.OwnerID && d.Restarts >= 1
	})
	waitMetrics(t, url, "discord's crash counted and discord ready again", func(m metricSet) bool {
		return m.value("reconciler_daemon_restarts_total", "name=discord,reason=Crashed") >= 1 &&
			m.is("reconciler_daemon_restarts_total", "name=slack,reason=Crashed", 0) &&
			m.is("reconciler_daemon_ready", "name=discord,provider=discord", 1) &&
			m.value("reconciler_loop_wakes_total", "trigger=ownerExit")+m.value("reconciler_loop_wakes_total", "trigger=childExit") >= 1
	})

	// A SIGTERM from someone else is a clean release, not a crash.
	termed := e.state("slack")
	if err := syscall.Kill(termed.PID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	e.waitStatus("slack respawned", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Converged && d.OwnerID != termed.OwnerID && d.Restarts >= 1
	})
	waitMetrics(t, url, "slack's release counted as such", func(m metricSet) bool {
		return m.is("reconciler_daemon_restarts_total", "name=slack,reason=Released", 1) &&
			m.is("reconciler_daemon_restarts_total", "name=slack,reason=Crashed", 0) &&
			m.is("reconciler_daemon_ready", "name=slack,provider=slack", 1)
	})
	if got := parse(t, scrape(t, url)).sum("reconciler_daemon_reconciles_total"); got < 4 {
		t.Errorf("daemon reconciles: %v, want at least the first pass's two and one per respawn", got)
	}

	// /metrics only.
	resp, err := http.Get(strings.TrimSuffix(url, "/metrics") + "/status")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /status: %d, want 404", resp.StatusCode)
	}
}

// An address that cannot be bound stops the loop's start, names the
// address, and touches nothing; a malformed one is a usage error.
func TestMetricsAddrRefused(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	for _, c := range []struct {
		addr string
		code int
		want string
	}{
		{addr, exitNotDone, "--metrics-addr " + addr + ": serving metrics: listen tcp " + addr},
		{"9464", exitInvalid, `--metrics-addr "9464": address 9464: missing port in address`},
	} {
		r := runBinary(t, e.env, e.args("--metrics-addr", c.addr)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("--metrics-addr %s: exit %d, want %d with %q; stderr:\n%s", c.addr, r.code, c.code, c.want, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(e.agentDir, "sdk")); !os.IsNotExist(err) {
		t.Errorf("a refused --metrics-addr touched the agent dir: %v", err)
	}
}

// --once serves nothing: a taken address does not stop it.
func TestOnceServesNoMetrics(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1, state: "Stopped"})
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	if r := e.once("--metrics-addr", taken.Addr().String()); r.code != 0 {
		t.Errorf("--once with a taken --metrics-addr: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// metricsAddress is the address the loop logged it serves on (port 0
// picks one).
func metricsAddress(t *testing.T, loop *loopProc) string {
	t.Helper()
	var addr string
	loop.logs.waitLog(t, "serving metrics", func(lines []map[string]any) bool {
		for _, l := range lines {
			if l["msg"] == "serving metrics" && l["level"] == "info" {
				addr = fmt.Sprint(l["address"])
				return true
			}
		}
		return false
	})
	if host, _, err := net.SplitHostPort(addr); err != nil || host != "127.0.0.1" {
		t.Fatalf("serving metrics on %q, want 127.0.0.1:port", addr)
	}
	return addr
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v\n%s", url, resp.StatusCode, err, body)
	}
	return string(body)
}

// metricSet is one scrape, parsed.
type metricSet map[string]*dto.MetricFamily

func parse(t *testing.T, body string) metricSet {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing the exposition: %v\n%s", err, body)
	}
	return families
}

// find returns the value of the series with exactly these labels
// ("k=v,k=v"), and whether there is one.
func (m metricSet) find(name, labels string) (float64, bool) {
	want := map[string]string{}
	if labels != "" {
		for kv := range strings.SplitSeq(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			want[k] = v
		}
	}
	for _, s := range m[name].GetMetric() {
		got := map[string]string{}
		for _, l := range s.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			continue
		}
		if s.Counter != nil {
			return s.Counter.GetValue(), true
		}
		return s.Gauge.GetValue(), s.Gauge != nil
	}
	return 0, false
}

func (m metricSet) value(name, labels string) float64 { v, _ := m.find(name, labels); return v }

// is tells a series that is there with value v from one that is absent.
func (m metricSet) is(name, labels string, v float64) bool {
	got, ok := m.find(name, labels)
	return ok && got == v
}

func (m metricSet) sum(name string) float64 {
	var total float64
	for _, s := range m[name].GetMetric() {
		total += s.GetCounter().GetValue()
	}
	return total
}

// waitMetrics scrapes until cond holds, up to the e2e deadline. There is no
// event to wait on over HTTP: the gauges follow status.json a moment after
// it is written, so a short bounded poll.
func waitMetrics(t *testing.T, url, what string, cond func(metricSet) bool) {
	t.Helper()
	deadline := time.Now().Add(e2eDeadline)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last string
	for time.Now().Before(deadline) {
		last = scrape(t, url)
		if cond(parse(t, last)) {
			return
		}
		<-tick.C
	}
	t.Fatalf("metrics: %s: not seen before the deadline; last scrape:\n%s", what, reconcilerLines(last))
}

// reconcilerLines keeps the project's own series of a scrape, for a failure.
func reconcilerLines(body string) string {
	var out []string
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "reconciler_") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}
