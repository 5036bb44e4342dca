// Package fakestore is an ownership.Store in memory, with faults to inject:
// records are ownership.State values per name, processes are fakes whose
// liveness, incarnation and claim the world sets, and the clock moves only
// when told. It keeps fsstore's semantics where a caller can see them (the
// same checks in the same order, the same errors and reasons, the same
// ladder), so that what passes against it passes for what the store
// decides, not for what the fake happens to allow; the conformance suite
// (ownershiptest) holds it to that.
//
// Faults (faults.go) are what a real backend can suffer and the fake can
// make happen on cue: liveness that cannot be read, signals that fail, a
// process that will not die, a record that changes between a stop's
// checks and its signal.
//
// What it does not model: files (a legacy "unavailable" record, symbolic
// links, private directories) and reclaim locks in progress.
package fakestore
