package chat

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
)

// shutdown is phase 4: stop the started components, last started first,
// then release the name, and say how the daemon exits.
//
// The components are stopped before the release: the transport is closed
// before the name is free, so a successor's connection never overlaps this
// one's; the relay, started after the transport, stops before it, so it
// never posts through a closed connection. Lost ownership stops them just
// the same, at once, and releases nothing: the record is no longer ours.
func (d *daemon) shutdown(started []Component, end ending) (int, error) {
	d.stopComponents(started, end.by)
	switch end.kind {
	case endLost:
		return daemonproto.ExitLost, end.err
	case endComponent:
		return d.releaseEnded(end.by, end.err)
	case endStartFailed:
		// Recorded as a stop the reconciler retries, never as a clean
		// release: a clean one reads as an operator's stop, and a
		// component that cannot start would be respawned without the
		// crash loop's back-off.
		t := &ownership.Terminated{Reason: daemonproto.ReasonTransportStopped, Message: redactURLs("a component could not start: " + end.err.Error())}
		if err := d.claim.Release(t); err != nil {
			return daemonproto.ExitFailed, fmt.Errorf("releasing after %w: %w", end.err, err)
		}
		return daemonproto.ExitFailed, end.err
	}
	if err := d.claim.Release(nil); err != nil {
		return daemonproto.ExitFailed, fmt.Errorf("releasing ownership: %w", err)
	}
	d.log.Info("stopped and released")
	return daemonproto.ExitStopped, nil
}

// stopComponents stops each component in reverse start order and waits for
// it without a bound: releasing while one may still talk to the service
// would let a successor connect beside it, and a stop that hangs is the
// reconciler's to end (it kills a daemon that outlives gracefulTimeout).
// What ended is the component that ended on its own: its error is
// reported by the release, not again here.
func (d *daemon) stopComponents(started []Component, ended Component) {
	for _, c := range slices.Backward(started) {
		if err := c.Stop(context.Background()); err != nil && c != ended {
			d.log.Error(err, "component ended with an error while stopping", "component", c.Name())
		}
	}
}

// releaseEnded releases after component c ended on its own with err: a
// terminal refusal is recorded so that the reconciler does not retry it;
// anything else is recorded as TransportStopped, which it retries.
func (d *daemon) releaseEnded(c Component, err error) (int, error) {
	code := daemonproto.ExitTerminal
	var te *TerminalError
	if !errors.As(err, &te) {
		code = daemonproto.ExitFailed
		te = &TerminalError{Reason: daemonproto.ReasonTransportStopped, Message: redactURLs(fmt.Sprint(c.Name()+" returned unexpectedly: ", err))}
	}
	d.log.Error(te, "component ended on its own; releasing", "component", c.Name())
	if rerr := d.claim.Release(&ownership.Terminated{Reason: te.Reason, Message: te.Message}); rerr != nil {
		return daemonproto.ExitFailed, fmt.Errorf("releasing after %v: %w", te, rerr)
	}
	return code, te
}
