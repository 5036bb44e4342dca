package reconcile

// reapedReleaser is a store whose holds outlive their owners' processes
// (a fleet's leases): told that an owner exited, because its parent
// reaped it, it ends that owner's hold at once. Otherwise a hold renewed
// by a cluster's restart would outlive a daemon that exited when it lost
// its lease, and the next look would take it for a hung owner, stop it,
// and wait out its lease and then a revoked lock, about a process that is
// gone. A store whose holds die with their processes (one machine's
// files) has nothing to release and does not implement it.
type reapedReleaser interface {
	ReleaseReaped(name, ownerID string, pid int) error
}

// releaseReaped tells the store, once, that this name's own spawn was
// reaped, before the look that judges its record: this process is its
// parent, so its exit is known, not inferred. A store that does not
// answer is told at the next look.
func (a *attempt) releaseReaped() {
	c := a.st.child
	if c == nil || c.released || !c.exited() {
		return
	}
	rel, ok := a.r.store.(reapedReleaser)
	if !ok {
		c.released = true
		return
	}
	if err := rel.ReleaseReaped(a.name, c.ownerID, c.pid); err != nil {
		a.r.log.V(1).Info("the reaped daemon's hold is not released yet", "name", a.name, "pid", c.pid, "ownerId", c.ownerID, "err", err.Error())
		return
	}
	c.released = true
}
