package localapi

import (
	"context"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/gc"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// Direct is a command acting itself, with no loop answering: the spec is
// read in this process (its fromEnv tokens from this environment), and
// every change is made under the pass lock, as --once makes them.
type Direct struct {
	AgentDir string
	SpecPath string
	Log      logr.Logger
	// Options builds the reconciler of an operation (its store and files).
	Options func() (reconcile.Options, error)
	// LockPasses takes the pass lock, waiting at most timeout (a command
	// line's, which says whom it waits for); nil takes it silently.
	LockPasses func(ctx context.Context, timeout time.Duration) (release func(), err error)
}

var _ Backend = (*Direct)(nil)

func (d *Direct) Status(_ context.Context, req StatusRequest) (*reconcile.Status, error) {
	o, err := d.Options()
	if err != nil {
		return nil, err
	}
	defer o.Store.Close()
	st, err := reconcile.View(o.Store, o.OperatorHolds(), d.AgentDir, spec.LoadOnce(d.SpecPath), req.Names)
	if err != nil {
		return nil, err
	}
	return st, reconcile.CheckViewNames(st, req.Names)
}

func (d *Direct) Stop(ctx context.Context, req StopRequest) (*OperateResponse, error) {
	op, err := stopOperation(req)
	if err != nil {
		return nil, err
	}
	return d.operate(ctx, reconcile.ActionStop, req.Selection, req.LockTimeout.Duration, op)
}

func (d *Direct) Start(ctx context.Context, req StartRequest) (*OperateResponse, error) {
	return d.operate(ctx, reconcile.ActionStart, req.Selection, req.LockTimeout.Duration, (*reconcile.Reconciler).Start)
}

func (d *Direct) Restart(ctx context.Context, req RestartRequest) (*OperateResponse, error) {
	return d.operate(ctx, reconcile.ActionRestart, req.Selection, req.LockTimeout.Duration, (*reconcile.Reconciler).Restart)
}

// operate resolves the names before anything is created or locked: an
// unknown name touches nothing. An invalid spec does not stop an operator:
// a name it does not declare is judged by its record alone.
func (d *Direct) operate(ctx context.Context, action string, sel reconcile.Selection, lock time.Duration, op reconcile.Operation) (*OperateResponse, error) {
	res := spec.LoadOnce(d.SpecPath)
	o, err := d.Options()
	if err != nil {
		return nil, err
	}
	names, err := reconcile.Targets(o.OperatorHolds(), d.AgentDir, action, sel, res)
	if err != nil {
		_ = o.Store.Close()
		return nil, err
	}
	r, err := reconcile.New(o)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	release, err := d.lockPasses(ctx, lock)
	if err != nil {
		return nil, err
	}
	results := r.Operate(ctx, names, res, op)
	release()
	r.AwaitLeaders(ctx, results)
	return &OperateResponse{Results: results}, nil
}

func (d *Direct) GC(ctx context.Context, req GCRequest) (*gc.Report, error) {
	res := spec.LoadOnce(d.SpecPath)
	// The pass lock keeps gc from judging files a pass is changing.
	release, err := d.lockPasses(ctx, req.LockTimeout.Duration)
	if err != nil {
		return nil, err
	}
	defer release()
	o, err := d.Options()
	if err != nil {
		return nil, err
	}
	defer o.Store.Close()
	return runGC(d.AgentDir, res, req.Prune, d.Log)
}

func (d *Direct) lockPasses(ctx context.Context, timeout time.Duration) (func(), error) {
	if d.LockPasses != nil {
		return d.LockPasses(ctx, lockTimeout(timeout))
	}
	ctx, cancel := context.WithTimeout(ctx, lockTimeout(timeout))
	defer cancel()
	return fsstore.New(d.AgentDir, fsstore.Options{}).LockPasses(ctx)
}
