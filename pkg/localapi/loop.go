package localapi

import (
	"context"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/gc"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// LoopBackend is what the loop serves: every request answered in the
// loop's process, with its spec result and tokens, each name's command
// serialized with that name's worker.
type LoopBackend struct {
	Loop     *reconcile.Loop
	AgentDir string
	Log      logr.Logger
	// Progress is the loop's reconciler's waits (its Options.Progress),
	// streamed to the operations that wait on them; nil streams none.
	Progress *ProgressHub
}

var _ Backend = (*LoopBackend)(nil)

func (b *LoopBackend) Status(ctx context.Context, req StatusRequest) (*reconcile.Status, error) {
	return b.Loop.View(ctx, req.Names)
}

func (b *LoopBackend) Stop(ctx context.Context, req StopRequest) (*OperateResponse, error) {
	op, err := stopOperation(req)
	if err != nil {
		return nil, err
	}
	return b.operate(ctx, reconcile.ActionStop, req.Selection, req.LockTimeout.Duration, op)
}

func (b *LoopBackend) Start(ctx context.Context, req StartRequest) (*OperateResponse, error) {
	return b.operate(ctx, reconcile.ActionStart, req.Selection, req.LockTimeout.Duration, (*reconcile.Reconciler).Start)
}

func (b *LoopBackend) Restart(ctx context.Context, req RestartRequest) (*OperateResponse, error) {
	return b.operate(ctx, reconcile.ActionRestart, req.Selection, req.LockTimeout.Duration, (*reconcile.Reconciler).Restart)
}

func (b *LoopBackend) operate(ctx context.Context, action string, sel reconcile.Selection, lock time.Duration, op reconcile.Operation) (*OperateResponse, error) {
	defer b.Progress.forward(ctx, progressNames(sel))()
	defer followOthersLock(ctx, b.AgentDir, lockTimeout(lock))()
	results, err := b.Loop.Operate(ctx, action, sel, lockTimeout(lock), op)
	if err != nil {
		return nil, err
	}
	return &OperateResponse{Results: results}, nil
}

func (b *LoopBackend) GC(ctx context.Context, req GCRequest) (*gc.Report, error) {
	var rep *gc.Report
	defer followOthersLock(ctx, b.AgentDir, lockTimeout(req.LockTimeout.Duration))()
	err := b.Loop.Exclusive(ctx, lockTimeout(req.LockTimeout.Duration), func(res *spec.Result) error {
		var err error
		rep, err = runGC(b.AgentDir, res, req.Prune, b.Log)
		return err
	})
	return rep, err
}
