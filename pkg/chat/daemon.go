package chat

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// DefaultHeartbeat is how often a daemon renews its record.
const DefaultHeartbeat = 5 * time.Second

// DaemonOptions are what a daemon needs besides its transport.
type DaemonOptions struct {
	AgentDir string
	// Owners is where the daemon takes its name from, and with it the
	// bus its relay uses (LocalOwners(fsstore.New(...)) on one machine).
	Owners    Owners
	OwnerID   string
	Config    *spec.Config
	Log       logr.Logger
	Heartbeat time.Duration
	// NewRelay, when set, makes the daemon's relay once the name is its
	// own: a component started after the transport (stopped before it)
	// that posts only while claim holds, from shared when Owners gave one
	// with the claim, and the source of the relay's health in every
	// heartbeat (a change is published at once, at most one extra write
	// a second). nil: no relay, and none published.
	NewRelay func(claim ownership.Claim, shared SharedBus) (RelayComponent, error)
}

// RelayComponent is a daemon's relay: a component that reports its
// health.
type RelayComponent interface {
	Component
	RelayHealth
}

// RunDaemon owns the config's name for as long as it runs, in four phases,
// each in its own file:
//
//  1. acquire (acquire.go): take the name; held by another, exit 3
//     without connecting;
//  2. start (start.go): the first heartbeat, then the components in
//     order (the transport, then the relay);
//  3. supervise (supervise.go): heartbeat with the transport's health,
//     watch control.json and ctx (SIGTERM, SIGINT), until a stop request,
//     lost ownership or a component that ends on its own;
//  4. shut down (shutdown.go): the components in reverse start order,
//     then release the name (never when it was lost).
//
// It returns the process exit code (daemonproto's) and, for any code but
// ExitStopped, why.
func RunDaemon(ctx context.Context, opts DaemonOptions, tr Transport) (int, error) {
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	owner, shared, code, err := acquire(opts)
	if err != nil {
		return code, err
	}
	// The claim ends with the daemon: after the release, or at once when
	// it was lost (a fleet's lease would otherwise outlive both).
	defer func() {
		if err := owner.Close(); err != nil {
			opts.Log.Error(err, "ending the claim")
		}
	}()
	transport := newTransportComponent(tr)
	d := &daemon{claim: owner, paths: ownership.PathsFor(opts.AgentDir, opts.Config.Name), cfg: opts.Config, log: opts.Log, heartbeat: opts.Heartbeat, health: transport}
	components := []Component{transport}
	if opts.NewRelay != nil {
		r, err := opts.NewRelay(owner, shared)
		if err != nil {
			// Nothing connected yet: give the name back as a plain failure.
			if rerr := owner.Release(nil); rerr != nil {
				opts.Log.Error(rerr, "releasing after the relay could not be made")
			}
			return daemonproto.ExitFailed, fmt.Errorf("making the relay: %w", err)
		}
		d.relay = r
		components = append(components, r)
	}
	return d.run(ctx, components)
}

// daemon is a daemon that owns its name: phases 2 to 4.
type daemon struct {
	claim      ownership.Claim
	paths      ownership.Paths
	cfg        *spec.Config
	log        logr.Logger
	heartbeat  time.Duration
	health     healthSource
	relay      RelayHealth // nil: no relay
	lastBeat   time.Time   // when the last heartbeat was written (supervise)
	controlErr string      // the last control.json problem logged
}

// run starts the components, supervises them and shuts them down.
func (d *daemon) run(ctx context.Context, components []Component) (int, error) {
	started, end := d.start(ctx, components)
	if end == nil {
		end = d.supervise(ctx, started)
	}
	return d.shutdown(started, *end)
}
