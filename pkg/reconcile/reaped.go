package reconcile

// releaseReaped tells the store, once, that this name's own spawn was
// reaped, before the look that judges its record: this process is its
// parent, so its exit is known, not inferred. A store that does not
// answer is told at the next look.
func (a *attempt) releaseReaped() {
	c := a.st.child
	if c == nil || c.released || !c.exited() {
		return
	}
	// Without it, a hold a cluster's restart renewed would outlive a
	// daemon that exited when it lost its lease, and the next look would
	// take it for a hung owner, stop it, and wait out its lease and a
	// revoked lock, about a process that is gone.
	if err := a.r.store.ReleaseReaped(a.name, c.ownerID, c.pid); err != nil {
		a.r.log.V(1).Info("the reaped daemon's hold is not released yet", "name", a.name, "pid", c.pid, "ownerId", c.ownerID, "err", err.Error())
		return
	}
	c.released = true
}
