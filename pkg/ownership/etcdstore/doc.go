// Package etcdstore is the fleet's ownership backend: the same contract as
// fsstore, kept on an etcd cluster the operator already runs, so one spec
// runs exactly one daemon per name across machines.
//
// Per name, under Prefix/<name>/:
//
//	state.json            the record, as the daemon publishes it (no lease: it
//	                      stays as history once its owner is gone)
//	owner.lock            the owner: {ownerId, pid, incarnation, machine,
//	                      lease}, attached to the daemon's own lease
//	owner.lock.revoked    left by a stop that revoked an owner's lease, on a
//	                      lease of its own: it stands until that owner's last
//	                      possible moment of connection has passed
//	control.json          a stop or reload request, as fsstore's
//	election/<lease>      the reconcilers' candidacies (concurrency.Election's
//	                      layout): the first created leads the name
//
// and Prefix/owners/<ownerId> -> name, on the owner's lease: which name an
// owner id holds, so a record copied from another name proves nothing.
//
// The invariants, and where they are kept:
//   - At most one owner: owner.lock is created only when neither it nor
//     owner.lock.revoked exists, in one transaction (Acquire).
//   - Every write an owner makes (its heartbeat, its release) and every
//     fence before a post compares owner.lock's create revision with the
//     one the owner created, in the same transaction (claim.go).
//   - An owner stops connecting before its lease can expire: it keeps its
//     lease alive itself and gives up at TTL minus a margin after the last
//     renewal it sent and the server answered (lease.go). The server
//     counts TTL from when it handled that renewal, later than it was
//     sent, so the owner's end always comes first.
//   - Only the machine that leads a name spawns or stops its daemon
//     (SpawnBlocked, Stop); the leadership places daemons, the lock above
//     keeps them single.
package etcdstore
