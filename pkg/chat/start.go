package chat

import (
	"context"
	"fmt"
)

// start is phase 2: the first heartbeat, then each component in order. It
// returns the components started, and an ending when the daemon must shut
// down without supervising them.
//
// Nothing connects before the first heartbeat succeeded: it proves that
// the name is still this daemon's after Acquire and that its record can be
// written. A daemon that connected first could, for a moment, be a second
// connection of a bot whose name is no longer its own.
func (d *daemon) start(ctx context.Context, components []Component) ([]Component, *ending) {
	// No transport error yet: the record reads as starting, not as failing.
	if err := d.claim.Renew(d.heartbeatOf(Health{})); err != nil {
		return nil, &ending{kind: endLost, err: fmt.Errorf("first heartbeat: %w", err)}
	}
	st := d.claim.State()
	d.log.Info("ownership acquired", "name", d.cfg.Name, "pid", st.PID, "ownerId", st.OwnerID, "generation", d.cfg.Generation, "identity", st.Identity)
	// A start may wait on the ownership store (a fleet's relay reads its
	// outbox from etcd) while the transport is already connected: it ends
	// the moment the claim is lost, so the transport closes in time.
	startCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-d.claim.Lost():
			cancel()
		case <-startCtx.Done():
		}
	}()
	var started []Component
	for _, c := range components {
		if err := c.Start(startCtx); err != nil {
			select {
			case <-d.claim.Lost():
				return started, &ending{kind: endLost, err: d.claim.Fence()}
			default:
			}
			if ctx.Err() != nil {
				d.log.Info("stop requested by signal while starting", "component", c.Name())
				return started, &ending{kind: endStop}
			}
			return started, &ending{kind: endStartFailed, err: fmt.Errorf("starting the %s: %w", c.Name(), err)}
		}
		started = append(started, c)
	}
	return started, nil
}
