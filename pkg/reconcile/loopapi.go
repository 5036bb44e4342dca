package reconcile

import (
	"context"
	"errors"
	"sync"
	"time"

	"gjc.dev/reconciler/pkg/spec"
)

// What the loop serves to an operator's commands (the local API): each runs
// in the loop's process, with the loop's spec result and so the loop's
// tokens, never the caller's.

// ErrLoopStopping: the loop ended before it could serve the request.
var ErrLoopStopping = errors.New("the reconcile loop is stopping")

// loopServing is the loop's side of serving operators: the per-name
// exclusion, and whether the first pass is done.
type loopServing struct {
	names nameLocks
	// ready is closed once the first pass is done: only then does the queue
	// own the names, and can a command be serialized with their workers.
	ready     chan struct{}
	readyOnce sync.Once
	// done is closed when Run returns.
	done     chan struct{}
	doneOnce sync.Once
}

func newLoopServing() *loopServing {
	return &loopServing{ready: make(chan struct{}), done: make(chan struct{})}
}

func (s *loopServing) markReady() { s.readyOnce.Do(func() { close(s.ready) }) }
func (s *loopServing) markDone()  { s.doneOnce.Do(func() { close(s.done) }) }

func (s *loopServing) waitReady(ctx context.Context) error {
	select {
	case <-s.ready:
		return nil
	case <-s.done:
		return ErrLoopStopping
	case <-ctx.Done():
		return ctx.Err()
	}
}

// bound is ctx, also cancelled when the loop stops. Only after waitReady.
func (l *Loop) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(l.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// View is the loop's status: status.json and a live look at every record,
// judged against the loop's spec. It reads only.
func (l *Loop) View(ctx context.Context, names []string) (*Status, error) {
	res := l.result()
	if res == nil {
		// The first load is the first thing Run does.
		if err := l.serving.waitReady(ctx); err != nil {
			return nil, err
		}
		res = l.result()
	}
	st, err := View(l.r.store, l.r.holds, l.r.opts.AgentDir, res, names)
	if err != nil {
		return nil, err
	}
	return st, CheckViewNames(st, names)
}

// Operate runs an operator's command (stop, start, restart) on the names
// sel resolves to (see Targets) with the loop's spec result. Each name is
// acted on with its worker excluded and under the pass lock, as work does,
// and requeued afterwards, so the loop looks at what the command left; a
// wait for the machine that leads a name comes after, holding neither (see
// AwaitLeaders).
// Nothing is touched when sel names an unknown daemon (a UsageError) or the
// pass lock is not had within lockTimeout (ErrLock).
func (l *Loop) Operate(ctx context.Context, action string, sel Selection, lockTimeout time.Duration, op Operation) ([]OperateResult, error) {
	if err := l.serving.waitReady(ctx); err != nil {
		return nil, err
	}
	ctx, cancel := l.bound(ctx)
	defer cancel()
	res := l.result()
	names, err := Targets(l.r.holds, l.r.opts.AgentDir, action, sel, res)
	if err != nil {
		return nil, err
	}
	if err := l.acquireWithin(ctx, lockTimeout); err != nil {
		return nil, err
	}
	results := eachName(names, func(name string) OperateResult {
		unlock, err := l.serving.names.lock(ctx, name)
		if err != nil {
			return OperateResult{Name: name, Action: action, Message: name + ": " + err.Error(), Warnings: []string{}}
		}
		defer l.q.add(name)
		defer unlock()
		return op(l.r, ctx, name, res.Lookup(name), res)
	})
	l.lock.release()
	l.r.AwaitLeaders(ctx, results)
	return results, nil
}

// Exclusive runs f with the loop's spec result under the pass lock and with
// every name's worker excluded: gc judges every daemon dir, and must not
// judge files a worker is writing.
func (l *Loop) Exclusive(ctx context.Context, lockTimeout time.Duration, f func(res *spec.Result) error) error {
	if err := l.serving.waitReady(ctx); err != nil {
		return err
	}
	ctx, cancel := l.bound(ctx)
	defer cancel()
	res := l.result()
	if err := l.acquireWithin(ctx, lockTimeout); err != nil {
		return err
	}
	defer l.lock.release()
	// In sorted order, so two of these never wait on each other; a worker
	// or a command holds one name at a time.
	for _, name := range l.r.Names(res) {
		unlock, err := l.serving.names.lock(ctx, name)
		if err != nil {
			return err
		}
		defer unlock()
	}
	return f(res)
}

// acquireWithin takes the shared pass lock, waiting at most d (and the
// loop's own lock timeout) for another process to let go of it.
func (l *Loop) acquireWithin(ctx context.Context, d time.Duration) error {
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	return l.lock.acquire(ctx)
}
