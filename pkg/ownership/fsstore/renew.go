package fsstore

import (
	"bytes"
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/incarnation"
	"gjc.dev/reconciler/pkg/ownership"
	"slices"
	"strconv"
	"unicode/utf8"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/platform"
)

// Renew is the heartbeat: it rewrites state.json with heartbeatAt now, the
// transport's health (transportError kept only while unhealthy) and the
// relay's (omitted when hb.Relay is nil; its block message cut to
// ownership.MaxDetail). A relay state the parser would refuse (a negative count, an
// unknown block reason) is an error and nothing is written: a record that
// reads as malformed would make the reconciler refuse its own owner. It
// first proves that the ownership is still this owner's: its own
// incarnation is still provable, owner.lock is still the file it created
// (lease), and state.json is still exactly what it last wrote. Otherwise
// it returns an *OwnershipLostError saying what differed, writes nothing,
// and every later call returns the same error: the daemon must stop its
// transport at once and exit. Failing to prove counts as a loss (an
// unreadable lock is not proved ours). Failing to write, after the proof,
// is returned as it is and is not a loss: the next Renew tries again.
func (o *Owner) Renew(hb ownership.Heartbeat) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.checkHeld(); err != nil {
		return err
	}
	next := o.state.Clone()
	next.HeartbeatAt = o.env.now().UnixMilli()
	next.TransportHealthy = hb.TransportHealthy
	next.TransportError, next.TransportReason = "", ""
	if !hb.TransportHealthy {
		next.TransportError = truncate(hb.TransportError, ownership.MaxDetail)
		if next.TransportError != "" && ownership.ValidReason(hb.TransportReason) {
			next.TransportReason = hb.TransportReason
		}
	}
	next.Relay = hb.Relay.Clone()
	next.Logins = nil
	if hb.Logins != nil && hb.Logins.Valid() {
		next.Logins = hb.Logins.Clone()
	}
	if r := next.Relay; r != nil {
		if r.Blocked != nil {
			r.Blocked.Message = truncate(r.Blocked.Message, ownership.MaxDetail)
		}
		if _, _, err := ownership.ParseState(next.Marshal()); err != nil {
			return fmt.Errorf("heartbeat not written: the relay's health is not valid: %w", err)
		}
	}
	return o.publish(next)
}

// checkHeld fails if this owner released or lost its ownership, or if
// verification shows it lost it now (which then sticks).
func (o *Owner) checkHeld() error {
	switch {
	case o.lost != nil:
		return o.lost
	case o.released:
		return &ownership.OwnershipLostError{What: ownership.StateFile, Field: "stoppedAt", Err: errors.New("released by this owner")}
	}
	if err := o.verify(); err != nil {
		o.lost = err
		close(o.lostCh) // once: lost is never unset
		return err
	}
	return nil
}

// Fence proves, before a side effect, that this owner still owns the name
// (ownership.Claim): the same proof as a heartbeat's, without the write.
// A loss it finds sticks and closes Lost.
func (o *Owner) Fence() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.checkHeld()
}

// Lost is closed the moment a heartbeat or a fence finds the ownership
// lost (ownership.Claim).
func (o *Owner) Lost() <-chan struct{} { return o.lostCh }

// verify proves that the ownership is still ours; see Renew.
func (o *Owner) verify() error {
	inc, err := o.env.incarnation(o.state.PID)
	switch {
	case err != nil:
		return &ownership.OwnershipLostError{What: "incarnation", Want: o.state.Incarnation, Err: err}
	case !incarnation.Valid(inc) || inc != o.state.Incarnation:
		return &ownership.OwnershipLostError{What: "incarnation", Want: o.state.Incarnation, Got: inc}
	}
	if err := platform.VerifyLease(o.paths.Lock, o.lease); err != nil {
		return &ownership.OwnershipLostError{What: ownership.LockFile, Err: err}
	}
	// What is about to be written must land in a directory only we
	// control, at every level.
	if _, err := checkDir(o.paths); err != nil {
		return &ownership.OwnershipLostError{What: "directory", Err: err}
	}
	rec := ReadState(o.paths)
	if rec.Present && (bytes.Equal(rec.Raw, o.raw) || slices.ContainsFunc(o.pending, func(p []byte) bool { return bytes.Equal(rec.Raw, p) })) {
		return nil
	}
	return o.recordDiff(rec)
}

// recordDiff explains how rec differs from what this owner last wrote,
// most telling field first.
func (o *Owner) recordDiff(rec ownership.Record) error {
	switch {
	case !rec.Present:
		return &ownership.OwnershipLostError{What: ownership.StateFile, Err: errors.New("record is gone")}
	case rec.Malformed != nil:
		return &ownership.OwnershipLostError{What: ownership.StateFile, Err: rec.Malformed}
	case rec.State == nil || rec.Legacy:
		return &ownership.OwnershipLostError{What: ownership.StateFile, Err: errors.New("record is not ours")}
	}
	if d := diffStates(o.state, *rec.State); len(d) > 0 {
		return &ownership.OwnershipLostError{What: ownership.StateFile, Field: d[0].field, Want: d[0].want, Got: d[0].got}
	}
	return &ownership.OwnershipLostError{What: ownership.StateFile, Err: errors.New("record was rewritten by another writer")}
}

// publish writes next and makes it this owner's state.
func (o *Owner) publish(next ownership.State) error {
	data := next.Marshal()
	if err := atomicfile.Write(o.paths.State, data); err != nil {
		// It may have reached the disk before failing (an fsync of the
		// directory, say): the next verify accepts any such version.
		o.pending = append(o.pending, data)
		if len(o.pending) > maxPending {
			o.pending = o.pending[len(o.pending)-maxPending:]
		}
		return fmt.Errorf("write %s: %w", o.paths.State, err)
	}
	o.state, o.raw, o.pending = next, data, nil
	return nil
}

// maxPending bounds the failed writes remembered: a disk that keeps failing
// must not grow a daemon's memory, and a write older than these is not what
// the disk holds unless every later rename failed before it happened.
const maxPending = 16

// fieldDiff is a field in which a record differs from the expected one.
type fieldDiff struct{ field, want, got string }

// diffStates lists the fields in which got differs from want, identity of
// the owner first.
func diffStates(want, got ownership.State) []fieldDiff {
	var d []fieldDiff
	add := func(field, w, g string) {
		if w != g {
			d = append(d, fieldDiff{field, w, g})
		}
	}
	add("ownerId", want.OwnerID, got.OwnerID)
	add("pid", strconv.Itoa(want.PID), strconv.Itoa(got.PID))
	add("incarnation", want.Incarnation, got.Incarnation)
	add("stoppedAt", optInt(want.StoppedAt), optInt(got.StoppedAt))
	add("kind", want.Kind, got.Kind)
	add("identity", want.Identity, got.Identity)
	add("generation", want.Generation.String(), got.Generation.String())
	add("startedAt", strconv.FormatInt(want.StartedAt, 10), strconv.FormatInt(got.StartedAt, 10))
	add("heartbeatAt", strconv.FormatInt(want.HeartbeatAt, 10), strconv.FormatInt(got.HeartbeatAt, 10))
	add("transportHealthy", strconv.FormatBool(want.TransportHealthy), strconv.FormatBool(got.TransportHealthy))
	add("transportError", want.TransportError, got.TransportError)
	add("transportReason", want.TransportReason, got.TransportReason)
	add("terminated", optTerminated(want.Terminated), optTerminated(got.Terminated))
	add("bootId", want.BootID, got.BootID)
	add("machine", want.Machine, got.Machine)
	add("relay", optRelay(want.Relay), optRelay(got.Relay))
	add("logins", optLogins(want.Logins), optLogins(got.Logins))
	add("version", strconv.Itoa(want.Version), strconv.Itoa(got.Version))
	return d
}

func optInt(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

// optRelay renders a relay state for a diff: its marshalled form, which
// holds every field.
func optRelay(r *ownership.RelayState) string {
	if r == nil {
		return ""
	}
	return string((&ownership.State{Relay: r}).Marshal())
}

func optTerminated(t *ownership.Terminated) string {
	if t == nil {
		return ""
	}
	return t.Reason + ": " + t.Message
}

// truncate shortens s to at most max bytes on a rune boundary.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

func optLogins(l *ownership.Logins) string {
	if l == nil {
		return ""
	}
	return fmt.Sprintf("%d/%d until %d", l.Used, l.Limit, l.ResetAt)
}
