package localapi

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/reconcile"
)

// HolderLook is how often a lock wait asks who holds the pass lock, to say
// so when the holder changes: for a person reading, not for the lock.
const HolderLook = 500 * time.Millisecond

// maxHolderCommand bounds the holder's command line in a wait line.
const maxHolderCommand = 120

// PassLockHolder is the pass lock's holder's PID and command line, as far
// as the kernel names them (0 and "" when it does not, or none holds it).
// The command line is another process's, so untrusted: one line, cut
// short; and not read at all for another user's process.
func PassLockHolder(agentDir string) (pid int, command string) {
	h, held, err := fsstore.PassLockHolder(agentDir)
	if err != nil || !held || h.PID == 0 {
		return 0, ""
	}
	if h.UID != os.Getuid() {
		return h.PID, fmt.Sprintf("uid %d", h.UID)
	}
	inc, err := platform.Incarnation(h.PID)
	if err != nil {
		return h.PID, ""
	}
	argv, err := platform.ProcessArgv(h.PID, inc)
	if err != nil {
		return h.PID, ""
	}
	s := []rune(ownership.OneLine(strings.Join(argv, " ")))
	if len(s) > maxHolderCommand {
		s = append(s[:maxHolderCommand-3], []rune("...")...)
	}
	return h.PID, string(s)
}

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
		t := time.NewTicker(HolderLook)
		defer t.Stop()
		var last reconcile.Progress
		for {
			p := reconcile.Progress{Wait: reconcile.WaitPassLock, Deadline: deadline}
			p.PID, p.Detail = PassLockHolder(agentDir)
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
