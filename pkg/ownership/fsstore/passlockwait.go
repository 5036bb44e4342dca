package fsstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// HolderLook is how often a wait for the pass lock asks who holds it, to
// say so when the holder changes: for a person reading, not for the lock.
const HolderLook = 500 * time.Millisecond

// maxHolderCommand bounds the holder's command line in a wait line.
const maxHolderCommand = 120

// HolderName is who holds a lock, as a waiting operator is told: its PID
// (0 when the kernel does not say) and its command line ("" when it
// cannot be read; "uid N" for another user's process).
type HolderName struct {
	PID     int
	Command string
}

// NamePassLockHolder is agentDir's pass lock's holder, as far as the
// kernel names it (the zero HolderName when it does not, or none holds
// it). The command line is another process's, so untrusted: one line, cut
// short; and not read at all for another user's process.
func NamePassLockHolder(agentDir string) HolderName {
	h, held, err := PassLockHolder(agentDir)
	if err != nil || !held || h.PID == 0 {
		return HolderName{}
	}
	if h.UID != os.Getuid() {
		return HolderName{PID: h.PID, Command: fmt.Sprintf("uid %d", h.UID)}
	}
	inc, err := platform.Incarnation(h.PID)
	if err != nil {
		return HolderName{PID: h.PID}
	}
	argv, err := platform.ProcessArgv(h.PID, inc)
	if err != nil {
		return HolderName{PID: h.PID}
	}
	s := []rune(ownership.OneLine(strings.Join(argv, " ")))
	if len(s) > maxHolderCommand {
		s = append(s[:maxHolderCommand-3], []rune("...")...)
	}
	return HolderName{PID: h.PID, Command: string(s)}
}

// LockPassesTelling takes the pass lock as LockPasses does, up to ctx's
// deadline. A free lock is taken at the first look, and tell is never
// called. A held one is waited for, telling who holds it: the holder at
// the first look (named or not), then each named holder that differs from
// the last told, every HolderLook. waited says whether it waited; last is
// the holder last told, for the error of a wait that ran out.
func (s *Store) LockPassesTelling(ctx context.Context, tell func(HolderName)) (release func(), last HolderName, waited bool, err error) {
	try, untried := context.WithCancel(ctx)
	untried() // one look, no wait
	release, err = s.LockPasses(try)
	if !errors.Is(err, ownership.ErrPassesLocked) || ctx.Err() != nil {
		return release, last, false, err
	}
	end := followPassLockHolder(ctx, s.agentDir, tell)
	release, err = s.LockPasses(ctx)
	return release, end(), true, err
}

// followPassLockHolder tells the pass lock's holder now and whenever another
// named one holds it, until the returned end is called; end returns the
// holder last told.
func followPassLockHolder(ctx context.Context, agentDir string, tell func(HolderName)) (end func() HolderName) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan HolderName, 1)
	go func() {
		var last HolderName
		t := time.NewTicker(HolderLook)
		defer t.Stop()
		for first := true; ; first = false {
			if h := NamePassLockHolder(agentDir); first || (h.PID != 0 && h != last) {
				tell(h)
				last = h
			}
			select {
			case <-ctx.Done():
				done <- last
				return
			case <-t.C:
			}
		}
	}()
	return func() HolderName {
		cancel()
		return <-done
	}
}
