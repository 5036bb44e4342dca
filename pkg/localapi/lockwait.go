package localapi

import (
	"context"
	"os"
	"time"

	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
)

// followOthersLock reports to ctx's progress sink, while an operation of
// the loop runs, each time another process (a --once, a command acting
// alone) holds the pass lock the operation needs, and the end of that
// wait. The loop's own passes hold it too, shared with the operation: no
// wait. Without a sink it does nothing.
func followOthersLock(ctx context.Context, agentDir string, timeout time.Duration) (stop func()) {
	sink := progressSink(ctx)
	if sink == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	deadline := time.Now().Add(timeout)
	go func() {
		defer close(done)
		t := time.NewTicker(fsstore.HolderLook)
		defer t.Stop()
		var last reconcile.Progress
		for {
			h := fsstore.NamePassLockHolder(agentDir)
			p := reconcile.Progress{Wait: reconcile.WaitPassLock, Deadline: deadline, PID: h.PID, Detail: h.Command}
			if p.PID == os.Getpid() || p.PID == 0 {
				p = reconcile.Progress{}
			}
			if p.PID != last.PID || p.Detail != last.Detail {
				sink(p)
				last = p
			}
			select {
			case <-ctx.Done():
				if last.Wait != reconcile.WaitNone {
					sink(reconcile.Progress{})
				}
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
