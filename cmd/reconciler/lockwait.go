package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
)

// passLock takes the pass lock for a one-shot command. A free lock is
// taken without a word; a held one is waited for, saying who holds it
// (report), and another reconciler holding it past the timeout is exit 3,
// naming the holder.
func passLock(ctx context.Context, agentDir string, timeout time.Duration, report reconcile.ProgressFunc) (release func(), err error) {
	store := fsstore.New(agentDir, fsstore.Options{})
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	try, untried := context.WithCancel(ctx)
	untried() // one look, no wait
	release, err = store.LockPasses(try)
	if errors.Is(err, ownership.ErrPassesLocked) && ctx.Err() == nil {
		deadline, _ := ctx.Deadline()
		held := followHolder(ctx, agentDir, deadline, report)
		release, err = store.LockPasses(ctx)
		last := held()
		if err != nil {
			err = fmt.Errorf("%w; held by %s", err, lockHolder(last))
		}
	}
	switch {
	case errors.Is(err, ownership.ErrPassesLocked):
		return nil, &exitError{code: exitLockTimeout, err: err}
	case err != nil:
		return nil, &exitError{code: exitNotDone, err: err}
	}
	return release, nil
}

// followHolder reports the pass lock's holder now and whenever it changes,
// until the returned func is called; that ends the wait's report and
// returns the holder last seen.
func followHolder(ctx context.Context, agentDir string, deadline time.Time, report reconcile.ProgressFunc) (end func() reconcile.Progress) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan reconcile.Progress, 1)
	go func() {
		var last reconcile.Progress
		t := time.NewTicker(localapi.HolderLook)
		defer t.Stop()
		for first := true; ; first = false {
			p := reconcile.Progress{Wait: reconcile.WaitPassLock, Deadline: deadline}
			p.PID, p.Detail = localapi.PassLockHolder(agentDir)
			if first || p.PID != last.PID || p.Detail != last.Detail {
				if p.PID != 0 || first {
					report(p)
					last = p
				}
			}
			select {
			case <-ctx.Done():
				report(reconcile.Progress{})
				done <- last
				return
			case <-t.C:
			}
		}
	}()
	return func() reconcile.Progress {
		cancel()
		return <-done
	}
}
