package reconcile

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/spec"
)

// Reasons of the SpecValid condition.
const (
	ReasonSpecValid = "Valid"
	// ReasonSpecInvalid: a spec file does not validate; this reconciler
	// saw it validate before, and keeps the objects it had then.
	ReasonSpecInvalid = "SpecInvalid"
	// ReasonLastKnownGoodFromDisk: a spec file does not validate and this
	// reconciler started so; it keeps the file's objects lastgood.json saved.
	ReasonLastKnownGoodFromDisk = "LastKnownGoodFromDisk"
	// ReasonNoLastKnownGood: a spec file does not validate and nothing is
	// kept for it: its daemons are neither started nor stopped.
	ReasonNoLastKnownGood = "NoLastKnownGood"
)

// What stands in for an invalid source, as status.json says it.
const (
	KeptInMemory = "InMemory"
	KeptFromDisk = "FromDisk"
	KeptNothing  = "Nothing"
)

// SpecKeeping is, while the spec is invalid, what the reconciler acts on.
type SpecKeeping struct {
	// Sources are the invalid spec files, each with what stands in for it.
	Sources []InvalidSource `json:"sources"`
	// ActingOn are the desired names, from valid files and kept objects:
	// every other name is neither started, stopped nor pruned.
	ActingOn []string `json:"actingOn"`
	// LastGoodProblem is why lastgood.json was not used, when that left a
	// broken file with nothing kept.
	LastGoodProblem string `json:"lastGoodProblem,omitempty"`
}

// InvalidSource is one spec file that does not validate.
type InvalidSource struct {
	File string `json:"file"`
	// Kept is KeptInMemory, KeptFromDisk or KeptNothing.
	Kept string `json:"kept"`
	// Names are the kept objects' names.
	Names []string `json:"names,omitempty"`
}

// keepingOf reports what an invalid result acts on; nil for a valid one.
func keepingOf(res *spec.Result) *SpecKeeping {
	if res.Valid() {
		return nil
	}
	k := &SpecKeeping{ActingOn: res.Names(), Sources: []InvalidSource{}, LastGoodProblem: res.LastGoodProblem}
	for _, s := range res.Sources {
		if s.Valid {
			continue
		}
		src := InvalidSource{File: s.File, Kept: KeptNothing}
		switch {
		case s.FromDisk:
			src.Kept = KeptFromDisk
		case s.LastKnownGood:
			src.Kept = KeptInMemory
		}
		for _, d := range res.Daemons {
			if d.File == s.File {
				src.Names = append(src.Names, d.Name())
			}
		}
		k.Sources = append(k.Sources, src)
	}
	return k
}

// specValidCondition is the SpecValid condition a result calls for. The
// reason says what stands in for the broken files, the worst first: a
// file with nothing kept, then one kept from lastgood.json, then one kept
// from this process's own reading.
func specValidCondition(res *spec.Result) metav1.Condition {
	c := metav1.Condition{Type: ConditionSpecValid, Status: metav1.ConditionTrue, Reason: ReasonSpecValid}
	if res == nil || res.Valid() {
		return c
	}
	c.Status = metav1.ConditionFalse
	msg := res.Errors[0].String()
	if n := len(res.Errors); n > 1 {
		msg += fmt.Sprintf(" (and %d more; run reconciler validate)", n-1)
	}
	k := res.Keeping()
	switch {
	case len(k.Nothing) > 0:
		c.Reason = ReasonNoLastKnownGood
		msg += "; nothing kept for " + strings.Join(k.Nothing, ", ") + ": its daemons are neither started nor stopped, and nothing is pruned"
		if res.LastGoodProblem != "" {
			msg += "; lastgood.json not used: " + res.LastGoodProblem
		}
	case len(k.Disk) > 0:
		c.Reason = ReasonLastKnownGoodFromDisk
		msg += "; " + strings.Join(k.Disk, ", ") + " keeps its last valid objects, from lastgood.json"
	default:
		c.Reason = ReasonSpecInvalid
		msg += "; the last valid objects are kept"
	}
	c.Message = msg
	return c
}

// specErrorMessage is the log message of one spec error: what its file
// keeps meanwhile, so the journal says whether a bot still runs as before.
func specErrorMessage(res *spec.Result, e spec.Issue) string {
	for _, s := range res.Sources {
		if s.File != e.File {
			continue
		}
		switch {
		case s.Valid:
			return "spec error"
		case s.FromDisk:
			return "spec error; keeping this file's last known good objects, from lastgood.json"
		case s.LastKnownGood:
			return "spec error; keeping the last known good objects of this file"
		}
		return "spec error; this file has no last known good: its daemons are neither started nor stopped"
	}
	return "spec error; nothing is pruned while the spec is invalid"
}
