package ownership

// LegacyIncarnation is what versions before process provenance wrote as the
// incarnation: it proves nothing.
const LegacyIncarnation = "unavailable"

// Record is what a store found where a name's owner record lives (on one
// machine, its state.json).
type Record struct {
	Present bool
	// State is set when the record's shape is valid, including a record
	// without a generation (legacy generation), and for the exact legacy
	// "unavailable" record (then Legacy is true).
	State *State
	// Legacy marks the exact pre-upgrade record whose incarnation is
	// "unavailable": recoverable once its PID is proved dead, malformed
	// while it lives.
	Legacy bool
	// Malformed says why the record cannot be trusted: a missing or
	// mistyped field, a symbolic link, an oversize or unreadable file, a
	// daemon directory that is not private; or why it could not be read
	// at all (a store that did not answer: an *UnreachableError, never a
	// *MalformedError, since no bytes were judged). State is nil then.
	Malformed error
	// Raw is the bytes read, for byte-identical comparisons.
	Raw []byte
	// Paths is where it was read: the daemon its process must prove to be
	// (see DaemonClaim). A Record without them proves no owner.
	Paths Paths
}
