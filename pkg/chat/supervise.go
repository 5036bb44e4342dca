package chat

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"gjc.dev/reconciler/pkg/ownership"
)

// ending is why a daemon shuts down.
type ending struct {
	kind endKind
	// err: for endLost, the loss; for endStartFailed, the failure; for
	// endComponent, why the component ended (its Err).
	err error
	// by is the component that ended on its own (endComponent).
	by Component
}

type endKind int

const (
	endStop        endKind = iota // a stop request (control.json) or a signal
	endLost                       // ownership lost: the record is no longer ours to write
	endComponent                  // a component ended on its own
	endStartFailed                // a component could not start
)

// supervise is phase 3: heartbeat every interval, on every change of the
// transport's health and (rate-limited, relayhealth.go) of the relay's, and watch control.json, ctx and the components,
// until one of them ends the daemon. A change to the record or the lock by
// anyone is proved at once (Fence), so a daemon whose ownership was taken
// stops within a file event, not a heartbeat.
func (d *daemon) supervise(ctx context.Context, components []Component) *ending {
	events, watchErrs, closeWatch := d.watchControl()
	defer closeWatch()
	ended, stopWatchingEnds := firstEnded(components)
	defer stopWatchingEnds()
	tick := time.NewTicker(d.heartbeat)
	defer tick.Stop()
	var current Health
	relay := &relayBeats{src: d.relay}
	defer relay.stop()
	// A request may predate the watch: look once now, then on every change
	// of control.json (not of other files: the daemon's own log lives here)
	// and on every heartbeat.
	check := true
	// A claim kept elsewhere than the daemon dir (a fleet's) says itself
	// when a control request may have arrived; nil for one kept here.
	controlChanged := d.claim.ControlChanged()
	for {
		if check && d.stopRequested() {
			d.log.Info("stop requested through control.json")
			return &ending{kind: endStop}
		}
		check = false
		select {
		case <-ctx.Done():
			d.log.Info("stop requested by signal")
			return &ending{kind: endStop}
		case ev := <-events:
			switch filepath.Base(ev.Name) {
			case filepath.Base(d.paths.Control):
				check = true
			case filepath.Base(d.paths.State), filepath.Base(d.paths.Lock):
				// Someone else touched what proves us the owner: prove it
				// again now, not at the next heartbeat.
				if err := d.claim.Fence(); errors.Is(err, ownership.ErrOwnershipLost) {
					d.log.Error(err, "ownership lost; stopping the components")
					return &ending{kind: endLost, err: err}
				}
			}
		case <-controlChanged:
			check = true
		case <-d.claim.Lost():
			// Found by a fence elsewhere (a component's, before a post).
			err := d.claim.Fence()
			d.log.Error(err, "ownership lost; stopping the components")
			return &ending{kind: endLost, err: err}
		case werr := <-watchErrs:
			d.log.Error(werr, "file watch; control requests are still read on each heartbeat")
		case <-d.health.HealthChanged():
			current = d.health.Health()
			d.log.Info("transport health", "healthy", current.Healthy, "reason", current.Err)
			if end := d.renew(current); end != nil {
				return end
			}
		case <-tick.C:
			check = true
			if end := d.renew(current); end != nil {
				return end
			}
		case <-relay.changed():
			if !relay.onChange(d.lastBeat, time.Now()) {
				continue
			}
			if end := d.renew(current); end != nil {
				return end
			}
		case <-relay.fired():
			relay.done()
			if end := d.renew(current); end != nil {
				return end
			}
		case c := <-ended:
			return &ending{kind: endComponent, err: c.Err(), by: c}
		}
	}
}

// watchControl watches the daemon dir so that a stop request takes effect
// at once. The heartbeat tick re-reads control.json too, so a failed watch
// costs latency, not safety: its channels are then nil, and never fire.
func (d *daemon) watchControl() (<-chan fsnotify.Event, <-chan error, func()) {
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		d.log.Error(err, "creating a file watcher; control requests are read on each heartbeat")
		return nil, nil, func() {}
	}
	if err := watcher.Add(d.paths.Dir); err != nil {
		d.log.Error(err, "watching the daemon dir; control requests are read on each heartbeat")
	}
	return watcher.Events, watcher.Errors, func() { _ = watcher.Close() }
}

// firstEnded yields the first component whose work ends while it is
// watched; stop ends the watch.
func firstEnded(components []Component) (ended <-chan Component, stop func()) {
	out := make(chan Component, len(components))
	quit := make(chan struct{})
	for _, c := range components {
		go func() {
			select {
			case <-c.Done():
				out <- c
			case <-quit:
			}
		}()
	}
	return out, func() { close(quit) }
}

// renew heartbeats. Lost ownership ends the daemon at once; any other failure
// (a full disk, say) is logged and tried again next beat: the record goes
// stale, and the reconciler replaces a hung owner on its own.
func (d *daemon) renew(h Health) *ending {
	d.lastBeat = time.Now()
	err := d.claim.Renew(d.heartbeatOf(h))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ownership.ErrOwnershipLost):
		d.log.Error(err, "ownership lost; stopping the components")
		return &ending{kind: endLost, err: err} // it says "ownership lost: ..."
	default:
		d.log.Error(err, "heartbeat not written; retrying on the next beat")
		return nil
	}
}

// stopRequested reports whether control.json holds a request addressed to this
// owner. Requests for anyone else are left in place for their addressee.
func (d *daemon) stopRequested() bool {
	requested, err := d.claim.StopRequested()
	if errors.Is(err, ownership.ErrOwnershipLost) {
		return false // the loop's next look at Lost ends the daemon
	}
	if err != nil {
		// Said once per distinct problem, not on every heartbeat.
		if msg := err.Error(); msg != d.controlErr {
			d.controlErr = msg
			d.log.Error(err, "ignoring an unreadable control request")
		}
		return false
	}
	d.controlErr = ""
	return requested
}
