package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
)

// passLock takes the pass lock for a one-shot command. A free lock is
// taken without a word; a held one is waited for, saying who holds it
// (report), and another reconciler holding it past the timeout is exit 3,
// naming the holder.
func passLock(ctx context.Context, agentDir string, timeout time.Duration, report reconcile.ProgressFunc) (release func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	holding := func(h fsstore.HolderName) reconcile.Progress {
		return reconcile.Progress{Wait: reconcile.WaitPassLock, Deadline: deadline, PID: h.PID, Detail: h.Command}
	}
	store := fsstore.New(agentDir, fsstore.Options{})
	release, last, waited, err := store.LockPassesTelling(ctx, func(h fsstore.HolderName) { report(holding(h)) })
	if waited {
		report(reconcile.Progress{}) // the wait is over
		if err != nil {
			err = fmt.Errorf("%w; held by %s", err, lockHolder(holding(last)))
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
