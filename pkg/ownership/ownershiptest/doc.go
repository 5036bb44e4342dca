// Package ownershiptest is the conformance suite of ownership backends: one
// set of cases, the reference system's ownership matrix, that every
// ownership.Store must pass whatever keeps its records (files on one
// machine, a fleet's etcd, an in-memory fake).
//
// A backend's test gives Run a Harness: a fresh World per case, and ways to
// put that world into each state the cases need: a live owner, one that
// ignores SIGTERM, a record naming a process that is not the owner, a
// released owner, a malformed record or lock, an owner whose record
// vanished. The cases then judge only what the Store says and does, and
// what the world's processes saw of it.
//
//	func TestConformance(t *testing.T) {
//		ownershiptest.Run(t, ownershiptest.Harness{New: newWorld})
//	}
//
// A backend that cannot offer a capability (a fleet's backend may have no
// local bystander process to name) calls t.Skip in that World method with
// its reason; the case is then skipped saying why, never passed.
//
// RunSafety runs only the cases that check what a store must never do
// (signal a process it has not proved the owner decided on, report gone an
// owner it could not prove gone, let a second owner or pass start). They
// hold under any fault that leaves proof intact, such as signals that fail
// or processes that will not die: a fault-injecting backend runs them with
// its faults on.
package ownershiptest
