// Package service speaks to the service manager that runs the reconciler:
// systemd's notify protocol (READY, STATUS, RELOADING, STOPPING, WATCHDOG).
// Under launchd, or run by hand, it does nothing.
package service

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/go-logr/logr"
	"golang.org/x/sys/unix"
)

// Notifier sends state changes to systemd when NOTIFY_SOCKET is set. Its
// methods are called from the loop and from signal handlers at once.
type Notifier struct {
	log     logr.Logger
	enabled bool

	// mu orders what is sent: once STOPPING=1 is out, no READY=1 may follow
	// it, or systemd would take a stopping service for a started one.
	mu       sync.Mutex
	ready    bool
	stopping bool
}

// NewNotifier reads NOTIFY_SOCKET. It never unsets it: the reconciler keeps
// notifying for its whole life; children are started without it instead.
func NewNotifier(log logr.Logger) *Notifier {
	return &Notifier{log: log, enabled: os.Getenv("NOTIFY_SOCKET") != ""}
}

func (n *Notifier) send(state string) {
	if !n.enabled {
		return
	}
	if _, err := daemon.SdNotify(false, state); err != nil {
		n.log.Error(err, "notifying systemd", "state", state)
	}
}

// Pass reports a pass's outcome: READY=1 after the first full pass, and
// STATUS=<ready>/<desired> ready after each, followed by the number of spec
// errors when the spec does not validate, so systemctl status shows it.
func (n *Notifier) Pass(ready, desired, specErrors int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	state := fmt.Sprintf("STATUS=%d/%d ready", ready, desired)
	if specErrors > 0 {
		state += fmt.Sprintf("; spec invalid: %d error(s), run reconciler validate", specErrors)
	}
	if !n.ready && !n.stopping {
		n.ready = true
		state = daemon.SdNotifyReady + "\n" + state
	}
	n.send(state)
}

// Reloading is sent when SIGHUP arrives, with the monotonic timestamp that
// systemd (Type=notify-reload) uses to match it with the READY that follows.
func (n *Notifier) Reloading() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stopping {
		return
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		n.send(daemon.SdNotifyReloading)
		return
	}
	usec := ts.Sec*1_000_000 + ts.Nsec/1000
	n.send(fmt.Sprintf("%s\nMONOTONIC_USEC=%d", daemon.SdNotifyReloading, usec))
}

// Reloaded ends a reload.
func (n *Notifier) Reloaded() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.stopping {
		n.send(daemon.SdNotifyReady)
	}
}

// Stopping is sent when the loop begins to stop.
func (n *Notifier) Stopping() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stopping = true
	n.send(daemon.SdNotifyStopping)
}

// WatchdogInterval is half of WATCHDOG_USEC (when the watchdog is on for this
// process), the rate systemd recommends; zero when off.
func (n *Notifier) WatchdogInterval() time.Duration {
	if !n.enabled {
		return 0
	}
	d, err := daemon.SdWatchdogEnabled(false)
	if err != nil || d <= 0 {
		return 0
	}
	return d / 2
}

// Watchdog pings systemd; the loop calls it from its own goroutine, so a
// stuck loop stops the pings and systemd restarts it.
func (n *Notifier) Watchdog() { n.send(daemon.SdNotifyWatchdog) }
