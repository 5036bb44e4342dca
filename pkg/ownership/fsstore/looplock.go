package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership/internal/agentdir"

	"gjc.dev/reconciler/pkg/platform"
)

// ErrLoopRunning: another process holds the agent dir's loop lock.
var ErrLoopRunning = errors.New("another reconciler loop runs on this agent dir")

// LoopRunningError names the process that holds the loop lock (PID 0 when
// the kernel cannot say).
type LoopRunningError struct{ PID int }

func (e *LoopRunningError) Error() string {
	if e.PID == 0 {
		return ErrLoopRunning.Error()
	}
	return fmt.Sprintf("%s (pid %d)", ErrLoopRunning, e.PID)
}

func (e *LoopRunningError) Is(target error) bool { return target == ErrLoopRunning }

// TakeLoopLock takes the kernel-held lock that one continuous loop per
// agent dir holds for its whole life, with the name locks' keys (so every
// spelling of the dir conflicts) and a last element no daemon name can be.
// Two loops on one dir would fight over its socket and double every warm
// replacement; the kernel drops the lock however the loop exits, and no
// file operation (a removed socket, an rm -rf of sdk/) can take it away.
func TakeLoopLock(agentDir string) (release func(), err error) {
	keys, err := agentdir.Keys(agentDir, true)
	if err != nil {
		return nil, fmt.Errorf("loop lock: %w", err)
	}
	for i := range keys {
		keys[i] += agentdir.LoopSuffix
	}
	held, err := platform.TakeNameLocks(keys...)
	var h *platform.NameHeldError
	switch {
	case errors.As(err, &h):
		return nil, &LoopRunningError{PID: h.Holder.PID}
	case err != nil:
		return nil, fmt.Errorf("loop lock: %w", err)
	}
	return held.Release, nil
}

// LoopLockHolder names the process holding agentDir's loop lock, as
// PassLockHolder does the pass lock's: for a command that finds no loop
// answering on the socket and must say that one runs all the same.
func LoopLockHolder(agentDir string) (holder platform.NameHolder, held bool, err error) {
	return lockHolder(agentDir, agentdir.LoopSuffix, "loop lock")
}
