package localapi

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/gc"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// What each request does to one name, the same in the loop and alone.

// stopOperation is a stop with the request's bounds; a zero bound is the
// default, a negative one the caller's mistake.
func stopOperation(req StopRequest) (reconcile.Operation, error) {
	o := reconcile.StopOptions{Force: req.Force, Graceful: req.GracefulTimeout.Duration, Kill: req.KillTimeout.Duration}
	if o.Graceful < 0 || o.Kill < 0 {
		return nil, badRequest("stop: timeouts must not be negative (graceful %v, kill %v)", o.Graceful, o.Kill)
	}
	if o.Graceful == 0 {
		o.Graceful = spec.DefaultGracefulTimeout
	}
	if o.Kill == 0 {
		o.Kill = spec.DefaultKillTimeout
	}
	return func(r *reconcile.Reconciler, ctx context.Context, name string, d *spec.Daemon, res *spec.Result) reconcile.OperateResult {
		return r.Stop(ctx, name, d, res, o)
	}, nil
}

// lockTimeout is the request's wait for the pass lock: the command line's
// default when not given.
func lockTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultLockTimeout
	}
	return d
}

// DefaultLockTimeout is the command line's --lock-timeout default.
const DefaultLockTimeout = 30 * time.Second

// runGC is `reconciler gc` over agentDir with the spec result res. The
// caller holds the pass lock (and, in the loop, every name).
func runGC(agentDir string, res *spec.Result, prune bool, log logr.Logger) (*gc.Report, error) {
	managed, problems, err := reconcile.ReadInventory(agentDir, log)
	if err != nil {
		return nil, err
	}
	opts := gc.Options{AgentDir: agentDir, Managed: append(managed, res.Names()...), Prune: prune}
	if !res.Valid() || len(problems) > 0 {
		// A broken spec may declare any name, and a damaged inventory may
		// have meant any: keep every record.
		opts.KeepAllRecords = true
	}
	rep, err := gc.Run(opts)
	if err != nil {
		return nil, fmt.Errorf("gc: %w", err)
	}
	return rep, nil
}
