// Package ownership is the ownership model shared by the reconciler, the
// daemons and every backend: the record (State, Record) and the formats of
// state.json, owner.lock and control.json (Marshal and ParseState,
// ParseOwnerLock, ParseControl, and the words a record carries), the pure
// judgement of a record against what is desired (Classify, over Facts a
// store gathered), the reasons and errors a refusal carries, the daemon's proof
// of who it is (VerifyDaemonArgv), and the two sides of a backend: Store,
// which the reconciler asks, and Acquirer / Claim, which a daemon holds.
//
// It performs no I/O of its own and imports nothing of the platform, so a
// backend for one machine (fsstore) and one for a fleet fit the same loop.
package ownership
