package chat

import (
	"errors"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
)

// acquire is phase 1: take the config's name. Nothing is started here, so
// a daemon refused the name has never connected.
func acquire(opts DaemonOptions) (ownership.Claim, int, error) {
	cfg := opts.Config
	owner, err := opts.Owners.Acquire(cfg.Name, ownership.AcquireRequest{
		Kind: string(cfg.Provider), OwnerID: opts.OwnerID, Identity: cfg.Identity(), Generation: cfg.Generation,
	})
	if err != nil {
		// Every "held by another" answer, a reclaim in progress included,
		// is exit 3: the name is someone else's for now.
		var held *ownership.HeldError
		var busy *ownership.ReclaimBusyError
		if errors.As(err, &held) || errors.As(err, &busy) {
			return nil, daemonproto.ExitHeld, err
		}
		return nil, daemonproto.ExitFailed, err
	}
	return owner, 0, nil
}
