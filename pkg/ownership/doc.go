// Package ownership is the on-disk ownership contract between the reconciler
// and its daemons: the formats of state.json, owner.lock, owner.lock.reclaim
// and control.json, how a record is classified against what is desired, and
// the fenced operations that acquire, renew, release and reclaim ownership,
// carry control requests and signal an owner.
//
// The formats are the reference system's, byte for byte (JSON.stringify key
// order plus "\n"), so a controller of the reference system and this one
// fence each other. Records are untrusted input: a record must be completely
// valid before its PID is treated as an owner, stopped, or safe to replace,
// and anything that cannot be proved is refused, never guessed.
//
// Every operation re-reads and re-checks what it acts on. Files are written
// atomically (platform.WriteFileAtomic), locks are link-created with a lease
// (platform.CreateExclusive), fenced files are removed only by
// platform.ExactUnlink, and a process is signalled only through a reference
// whose incarnation was re-proved (platform.OpenProcess). Every file of the
// contract is read without following a symbolic link and capped at
// MaxRecordSize. Readers refuse a daemon directory that is not private;
// everything that creates, writes, removes or signals also refuses any
// level above it (sdk, sdk/daemons) that is not.
//
// Daemon side: Acquire, Owner.Renew, Owner.Release, ReadControl,
// Owner.ControlAddressed. Controller side: ReadState, Classify,
// WriteControl, SignalOwner (or OpenOwner), ClearControl.
package ownership
