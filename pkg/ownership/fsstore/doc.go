// Package fsstore is the ownership backend of one machine (ownership.Store
// for the reconciler, ownership.Acquirer and Claim for a daemon): state.json,
// owner.lock, owner.lock.reclaim and control.json as files (their formats
// are pkg/ownership's), the kernel-held name locks, and the fenced operations that acquire,
// renew, release and reclaim ownership, carry control requests, signal an
// owner through the stop ladder (internal/ladder) and hold a reference to its process. It
// proves every process it acts on (pkg/platform) and refuses what it cannot
// prove; the reconciler only decides.
//
// The formats are the reference system's, byte for byte (JSON.stringify key
// order plus "\n"), so a controller of the reference system and this one
// fence each other. Records are untrusted input: a record must be completely
// valid before its PID is treated as an owner, stopped, or safe to replace,
// and anything that cannot be proved is refused, never guessed.
//
// Every operation re-reads and re-checks what it acts on. Files are written
// atomically (atomicfile.Write), locks are link-created with a lease
// (platform.CreateExclusive), fenced files are removed only by
// platform.ExactUnlink, and a process is signalled only through a reference
// whose incarnation was re-proved (platform.OpenProcess). Every file of the
// contract is read without following a symbolic link and capped at
// MaxRecordSize. Readers refuse a daemon directory that is not private;
// everything that creates, writes, removes or signals also refuses any
// level above it (sdk, sdk/daemons) that is not.
//
// Daemon side: Store.Acquire (Acquire), Owner.Renew, Owner.Release,
// Owner.StopRequested. Controller side: Store.Observe (ReadState and
// GatherFacts, judged by ownership.Classify), Store.Stop (WriteControl,
// SignalOwner or OpenOwner, ClearControl), Store.SpawnBlocked.
package fsstore
