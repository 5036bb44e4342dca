package chat

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// DefaultHeartbeat is how often a daemon renews its record.
const DefaultHeartbeat = 5 * time.Second

// DaemonOptions are what a daemon needs besides its transport.
type DaemonOptions struct {
	AgentDir  string
	OwnerID   string
	Config    *spec.Config
	Log       logr.Logger
	Heartbeat time.Duration
}

// RunDaemon owns the config's name for as long as it runs: acquire, first
// heartbeat, connect, heartbeat with the transport's health, and on a stop
// request or ctx: close the transport first, then release. It returns the
// process exit code and, for any code but daemonproto.ExitStopped, why.
func RunDaemon(ctx context.Context, opts DaemonOptions, tr Transport) (int, error) {
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	cfg, log := opts.Config, opts.Log
	paths := ownership.PathsFor(opts.AgentDir, cfg.Name)
	if err := ownership.EnsureDir(paths); err != nil {
		return daemonproto.ExitFailed, err
	}
	owner, err := ownership.Acquire(paths, ownership.AcquireRequest{
		Kind: string(cfg.Provider), OwnerID: opts.OwnerID, Identity: cfg.Identity(), Generation: cfg.Generation,
	})
	if err != nil {
		// Every "held by another" answer, a reclaim in progress included,
		// is exit 3: the name is someone else's for now.
		var held *ownership.HeldError
		var busy *ownership.ReclaimBusyError
		if errors.As(err, &held) || errors.As(err, &busy) {
			return daemonproto.ExitHeld, err
		}
		return daemonproto.ExitFailed, err
	}
	// No transport error yet: the record reads as starting, not as failing.
	if err := owner.Renew(false, ""); err != nil {
		return daemonproto.ExitLost, fmt.Errorf("first heartbeat: %w", err)
	}
	st := owner.State()
	log.Info("ownership acquired", "name", cfg.Name, "pid", st.PID, "ownerId", st.OwnerID, "generation", cfg.Generation, "identity", st.Identity)

	// The watch makes a stop request take effect at once; the heartbeat tick
	// re-reads control.json too, so a failed watch costs latency, not safety.
	// Nil channels (no watch) never fire.
	var events <-chan fsnotify.Event
	var watchErrs <-chan error
	if watcher, err := fsnotify.NewWatcher(); err != nil {
		log.Error(err, "creating a file watcher; control requests are read on each heartbeat")
	} else {
		defer watcher.Close()
		if err := watcher.Add(paths.Dir); err != nil {
			log.Error(err, "watching the daemon dir; control requests are read on each heartbeat")
		}
		events, watchErrs = watcher.Events, watcher.Errors
	}

	d := &daemon{owner: owner, paths: paths, log: log, health: newMailbox()}
	tctx, stopTransport := context.WithCancel(context.Background())
	defer stopTransport()
	trDone := make(chan error, 1)
	go func() { trDone <- tr.Run(tctx, d.health.put) }()
	// closeTransport closes the connection and waits until it is closed, so
	// that nothing this process holds talks to the service any more.
	closeTransport := func() error {
		stopTransport()
		return <-trDone
	}

	tick := time.NewTicker(opts.Heartbeat)
	defer tick.Stop()
	var current Health
	// A request may predate the watch: look once now, then on every change
	// of control.json (not of other files: the daemon's own log lives here)
	// and on every heartbeat.
	check := true
	for {
		if check && d.stopRequested() {
			log.Info("stop requested through control.json")
			return d.stop(closeTransport)
		}
		check = false
		select {
		case <-ctx.Done():
			log.Info("stop requested by signal")
			return d.stop(closeTransport)
		case ev := <-events:
			check = filepath.Base(ev.Name) == filepath.Base(paths.Control)
		case werr := <-watchErrs:
			log.Error(werr, "file watch; control requests are still read on each heartbeat")
		case <-d.health.ready:
			current = d.health.take()
			log.Info("transport health", "healthy", current.Healthy, "reason", current.Err)
			if code, done, err := d.renew(closeTransport, current); done {
				return code, err
			}
		case <-tick.C:
			check = true
			if code, done, err := d.renew(closeTransport, current); done {
				return code, err
			}
		case err := <-trDone:
			return d.ended(err)
		}
	}
}

// renew heartbeats. Lost ownership ends the daemon at once; any other failure
// (a full disk, say) is logged and tried again next beat: the record goes
// stale, and the reconciler replaces a hung owner on its own.
func (d *daemon) renew(closeTransport func() error, h Health) (code int, done bool, err error) {
	err = d.owner.Renew(h.Healthy, h.Err)
	switch {
	case err == nil:
		return 0, false, nil
	case errors.Is(err, ownership.ErrOwnershipLost):
		code, err = d.lost(closeTransport, err)
		return code, true, err
	default:
		d.log.Error(err, "heartbeat not written; retrying on the next beat")
		return 0, false, nil
	}
}

type daemon struct {
	owner      *ownership.Owner
	paths      ownership.Paths
	log        logr.Logger
	health     *mailbox
	controlErr string // the last control.json problem logged
}

// stopRequested reports whether control.json holds a request addressed to this
// owner. Requests for anyone else are left in place for their addressee.
func (d *daemon) stopRequested() bool {
	req, err := ownership.ReadControl(d.paths)
	if err != nil {
		// Said once per distinct problem, not on every heartbeat.
		if msg := err.Error(); msg != d.controlErr {
			d.controlErr = msg
			d.log.Error(err, "ignoring an unreadable control request")
		}
		return false
	}
	d.controlErr = ""
	return req != nil && d.owner.ControlAddressed(*req)
}

func (d *daemon) stop(closeTransport func() error) (int, error) {
	if err := closeTransport(); err != nil {
		d.log.Error(err, "transport ended with an error while stopping")
	}
	if err := d.owner.Release(nil); err != nil {
		return daemonproto.ExitFailed, fmt.Errorf("releasing ownership: %w", err)
	}
	d.log.Info("stopped and released")
	return daemonproto.ExitStopped, nil
}

// lost stops the transport at once and leaves the record alone: it is no
// longer ours to write.
func (d *daemon) lost(closeTransport func() error, why error) (int, error) {
	d.log.Error(why, "ownership lost; closing the transport")
	_ = closeTransport()
	return daemonproto.ExitLost, fmt.Errorf("ownership lost: %w", why)
}

// ended handles a transport that returned on its own: a terminal refusal is
// recorded so the reconciler does not retry it.
func (d *daemon) ended(err error) (int, error) {
	code := daemonproto.ExitTerminal
	var te *TerminalError
	if !errors.As(err, &te) {
		// Not a refusal: record why, and let the reconciler retry.
		code = daemonproto.ExitFailed
		te = &TerminalError{Reason: daemonproto.ReasonTransportStopped, Message: redactURLs(fmt.Sprint("transport returned unexpectedly: ", err))}
	}
	d.log.Error(te, "transport ended; releasing")
	if rerr := d.owner.Release(&ownership.Terminated{Reason: te.Reason, Message: te.Message}); rerr != nil {
		return daemonproto.ExitFailed, fmt.Errorf("releasing after %v: %w", te, rerr)
	}
	return code, te
}

// mailbox holds the latest health report: a transport never blocks on a slow
// heartbeat, and the daemon always writes the newest state.
type mailbox struct {
	mu    sync.Mutex
	value Health
	ready chan struct{}
}

func newMailbox() *mailbox { return &mailbox{ready: make(chan struct{}, 1)} }

func (m *mailbox) put(h Health) {
	m.mu.Lock()
	m.value = h
	m.mu.Unlock()
	select {
	case m.ready <- struct{}{}:
	default:
	}
}

func (m *mailbox) take() Health {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.value
}
