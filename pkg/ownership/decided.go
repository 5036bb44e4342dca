package ownership

import (
	"fmt"
	"strconv"

	"gjc.dev/reconciler/pkg/spec"
)

// DecidedChange returns the first field that identifies an owner in which
// the record now (cur) differs from the one a decision was made on, as an
// *OwnerChangedError, or nil when it is the same owner.
func DecidedChange(decided, cur State) *OwnerChangedError {
	for _, d := range [...]struct{ field, want, got string }{
		{"ownerId", decided.OwnerID, cur.OwnerID},
		{"pid", strconv.Itoa(decided.PID), strconv.Itoa(cur.PID)},
		{"identity", decided.Identity, cur.Identity},
		{"incarnation", decided.Incarnation, cur.Incarnation},
		{"generation", recordedGeneration(decided.Generation), recordedGeneration(cur.Generation)},
		{"kind", decided.Kind, cur.Kind},
	} {
		if d.want != d.got {
			return &OwnerChangedError{Field: d.field, Want: d.want, Got: d.got}
		}
	}
	return nil
}

func recordedGeneration(g spec.OptGeneration) string {
	if g, ok := g.Get(); ok {
		return g.String()
	}
	return "(none: legacy)"
}

// MaySignal is the record's half of the checks before a signal, shared by
// every store: the record now (cur) must still name the owner decided on,
// be one want (nil for a name no source declares) may touch, and be of this
// boot. nil means the store may go on to prove the process itself.
func MaySignal(decided, cur State, want *Desired, boot BootFacts) error {
	if d := DecidedChange(decided, cur); d != nil {
		return d
	}
	if want != nil {
		if cur.Kind != want.Kind {
			return &NotSignalableError{PID: cur.PID, Code: ReasonForeignOwner,
				Detail: fmt.Sprintf("a %s daemon, desired %s", cur.Kind, want.Kind)}
		}
		if g, ok := cur.Generation.Get(); ok && g > want.Generation {
			return &NotSignalableError{PID: cur.PID, Code: ReasonGenerationAhead,
				Detail: fmt.Sprintf("generation %d is ahead of desired %d; never downgraded", g, want.Generation)}
		}
	}
	if !boot.Known(&cur) {
		// The boot rule cannot be applied, so the incarnation (start time
		// since boot) is not proof across a reboot: fail closed.
		return &NotSignalableError{PID: cur.PID, Code: ReasonOwnerUnverifiable, Detail: "boot time unknown", Err: boot.TimeErr}
	}
	if boot.FromPreviousBoot(&cur) {
		return &NotSignalableError{PID: cur.PID, Code: ReasonPreviousBoot,
			Detail: "the record's process started before this boot, so its incarnation proves nothing"}
	}
	return nil
}
