package reconcile

import "gjc.dev/reconciler/pkg/ownership"

// EventRemoved: a name this reconciler pruned, reported since (something
// ran in its dir that it did not start), is left out of the status again:
// nothing of it runs.
const EventRemoved = "Removed"

// offTable reports whether a name that no spec declares and this
// reconciler does not manage is left out of the status: only one it
// pruned (removed), and only while nothing of it runs: no record, or a
// stopped one whose owner is proven gone, and no owner tracked for it (its
// record vanished) still running. Whatever else is in such a dir is
// another's, and reported Unmanaged.
func offTable(removed bool, cls ownership.Classification, trackedRuns bool) bool {
	if !removed || trackedRuns || cls.AmbiguouslyLive {
		return false
	}
	return cls.Class == ownership.ClassAbsent || cls.Class == ownership.ClassStopped
}

// unmanagedMessage says only what is known of an Unmanaged name: whether
// this reconciler pruned it once (removed), never that it never started it.
func unmanagedMessage(removed bool) string {
	if removed {
		return "not in the spec; this reconciler pruned it, and the daemon there now is not one it started; left alone"
	}
	return "not in the spec nor in this reconciler's inventory; left alone"
}
