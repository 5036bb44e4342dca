package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"

	"gjc.dev/reconciler/pkg/metrics"
	"gjc.dev/reconciler/pkg/reconcile"
)

// metricsServer is --metrics-addr: the loop's metrics over HTTP, from
// before the first pass (a loop stuck on the pass lock shows no pass)
// until the loop stops. A nil one is off and does nothing.
type metricsServer struct {
	m    *metrics.Metrics
	srv  *http.Server
	done chan struct{}
	log  logr.Logger
}

// metricsShutdownWait bounds how long a stopping loop waits for a scrape
// under way.
const metricsShutdownWait = 5 * time.Second

// startMetrics binds addr and serves /metrics on it; empty addr is off.
// Binding happens before anything else is touched: an address that is
// wrong or taken stops the start and names the address.
func startMetrics(log logr.Logger, addr string) (*metricsServer, error) {
	if addr == "" {
		return nil, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("--metrics-addr %q: %w (want host:port, such as 127.0.0.1:9464)", addr, err)}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &exitError{code: exitNotDone, err: fmt.Errorf("--metrics-addr %s: serving metrics: %w", addr, err)}
	}
	s := &metricsServer{m: metrics.New(), done: make(chan struct{}), log: log}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.m.Handler())
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	bound := ln.Addr().String()
	if !loopback(ln.Addr()) {
		// The operator asked for it; the metrics hold daemon names, not
		// secrets, but anyone who can reach the port reads them.
		warn(log, "metrics are served beyond this machine's loopback", "address", bound)
	}
	// The bound address, not the asked one: port 0 picks a free port.
	log.Info("serving metrics", "address", bound, "path", "/metrics")
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error(err, "serving metrics stopped; the loop goes on without them", "address", bound)
		}
	}()
	return s, nil
}

// stop ends the server with the loop, letting a scrape under way finish.
func (s *metricsServer) stop() {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), metricsShutdownWait)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.log.Error(err, "stopping the metrics server")
		_ = s.srv.Close()
	}
	<-s.done
}

// hooks feed the metrics from the reconciler; none when off.
func (s *metricsServer) hooks() reconcile.Hooks {
	if s == nil {
		return reconcile.Hooks{}
	}
	return s.m.Hooks()
}

// status feeds the metrics what status.json now says.
func (s *metricsServer) status(p reconcile.PassResult) {
	if s != nil {
		s.m.Status(p)
	}
}

// loopback reports whether a bound address is reachable from this machine
// only. An unspecified address (0.0.0.0, [::]) is every interface.
func loopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// warn logs at zap's warn level where the logger is zap's (logr has no
// warn level), else as info.
func warn(log logr.Logger, msg string, kv ...any) {
	if u, ok := log.GetSink().(zapr.Underlier); ok {
		u.GetUnderlying().Sugar().Warnw(msg, kv...)
		return
	}
	log.Info(msg, kv...)
}
