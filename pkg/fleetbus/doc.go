// Package fleetbus keeps a relay's bus on the fleet's etcd cluster
// (DESIGN 10), so a message written on any machine is posted once, by
// whichever machine owns its name, and a machine that takes a name over
// neither loses nor repeats what its predecessor posted.
//
// Under <prefix>/<name>/:
//
//	outbox/<id>    a message waiting to be posted, as a machine forwarded
//	               it from its own outbox (the canonical JSON of bus.Encode)
//	done/<id>      the MessageSum of a message the owner finished (posted,
//	               or failed for good), on a lease of a day
//	journal/<seq>  the owner's relay journal, one record a key, seq
//	               zero-padded so keys sort in the order they were written
//	inbox/<session>/<file>
//	               a file the owner's daemon landed in a session's inbox
//	               (a reply, a decision), its bytes, on a lease of a day;
//	               the files attached to a reply stay on the machine that
//	               landed it, and only the reply's listing of them travels
//
// The invariants, and where they are kept:
//   - A forwarded file leaves its machine's outbox only once its entry is
//     stored, or the same message is already stored or done (Forwarder).
//   - Only the owner writes the journal, and removes an entry: every such
//     write is fenced by its claim in the same transaction (Owner), so a
//     daemon that lost the name changes nothing.
//   - An entry is removed only after its message left the relay's outbox
//     for good (Puller.Finish), and done/<id> is written in the same
//     transaction, so a forwarder never stores it again within the day.
//   - Every machine's inbox gets each file of the fleet's inbox exactly
//     once, the landing machine's included (InboxFollower, inboxledger.go):
//     a file is written only after the machine's ledger says it is to
//     be, and never where the ledger says it was.
package fleetbus
