package etcdstore

import (
	"gjc.dev/reconciler/pkg/ownership"
)

// SpawnBlocked reports why this machine may not start name's daemon now:
// another machine leads it, or an owner holds it (owner.lock), or a
// revoked owner may still run (owner.lock.revoked), or a lock cannot be
// read. The daemon's own Acquire is the guard; this is the report.
func (s *Store) SpawnBlocked(name string) error {
	if err := s.mustLead(name); err != nil {
		return err
	}
	ctx, cancel := s.reqCtx()
	defer cancel()
	l, err := s.look(ctx, name)
	if err != nil {
		return err
	}
	if l.owner != nil {
		h, err := lockAt(l.owner, true)
		if err != nil {
			return err
		}
		return &ownership.HeldError{PID: h.PID, OwnerID: h.OwnerID, Incarnation: h.Incarnation, Source: ownership.LockFile}
	}
	if l.revoked != nil {
		h, err := lockAt(l.revoked, false)
		if err != nil {
			return err
		}
		return &ownership.HeldError{PID: h.PID, OwnerID: h.OwnerID, Incarnation: h.Incarnation, Source: ownership.LockFile + ".revoked", Unproven: true}
	}
	return nil
}
