package chat

import (
	"errors"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
)

// Owners is where a daemon takes its name from, and with the claim the
// bus its relay uses. The daemon's wiring makes it from the chosen
// backend (LocalOwners on one machine; in a fleet, the fleet's bus made
// from the etcd claim), so the runtime knows nothing of where the bus
// lives and never asks a claim what else it can do.
type Owners interface {
	// Acquire takes name, as ownership.Acquirer does. shared, when not
	// nil, is the bus the relay posts from and keeps its journal in,
	// shared beyond this machine and written only through claim; nil:
	// the name's bus on this machine.
	Acquire(name string, req ownership.AcquireRequest) (claim ownership.Claim, shared SharedBus, err error)
}

// LocalOwners takes names from a, every relay using its name's bus on
// this machine (one machine's files: fsstore).
func LocalOwners(a ownership.Acquirer) Owners { return localOwners{a} }

type localOwners struct{ acquirer ownership.Acquirer }

func (l localOwners) Acquire(name string, req ownership.AcquireRequest) (ownership.Claim, SharedBus, error) {
	c, err := l.acquirer.Acquire(name, req)
	return c, nil, err
}

// acquire is phase 1: take the config's name. Nothing is started here, so
// a daemon refused the name has never connected.
func acquire(opts DaemonOptions) (ownership.Claim, SharedBus, int, error) {
	cfg := opts.Config
	owner, shared, err := opts.Owners.Acquire(cfg.Name, ownership.AcquireRequest{
		Kind: string(cfg.Provider), OwnerID: opts.OwnerID, Identity: cfg.Identity(), Generation: cfg.Generation,
	})
	if err != nil {
		// Every "held by another" answer, a reclaim in progress included,
		// is exit 3: the name is someone else's for now.
		var held *ownership.HeldError
		var busy *ownership.ReclaimBusyError
		if errors.As(err, &held) || errors.As(err, &busy) {
			return nil, nil, daemonproto.ExitHeld, err
		}
		return nil, nil, daemonproto.ExitFailed, err
	}
	return owner, shared, 0, nil
}
