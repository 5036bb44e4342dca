package fleetbus

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/relay"
)

// RelayBus is a fleet's bus as one owner's relay uses it: the outbox
// every machine forwarded (made again locally by its Puller), and the
// journal kept in etcd, both written only through the owner's claim.
type RelayBus struct {
	*Puller
	dirs    bus.Dirs
	journal *Journal
}

// ForRelay returns the fleet's bus for the relay of the name owner holds,
// whose local bus is local.
func ForRelay(owner Owner, local bus.Dirs, log logr.Logger) *RelayBus {
	dirs := Dirs(local)
	return &RelayBus{Puller: NewPuller(owner, dirs, log), dirs: dirs, journal: NewJournal(owner)}
}

// Dirs is the bus the relay reads: the pulled outbox, the local rest.
func (b *RelayBus) Dirs() bus.Dirs { return b.dirs }

// Journal is the relay's journal, in etcd.
func (b *RelayBus) Journal() relay.JournalStore { return b.journal }

// KeepInbox is told of each of the relay's landings once it is recorded
// and before its file is published (inbound.Options.Keep): the file's
// bytes are kept in this machine's ledger, for the loop to put in the
// fleet's inbox (InboxFollower), before a reader can take the file.
// copied: the file is here already, copied from the fleet (a reply the
// previous owner landed, read again from history after a takeover); the
// landing drops it rather than publish it twice.
func (b *RelayBus) KeepInbox(session, file string) (copied bool, err error) {
	data, err := bus.ReadStagedInbox(b.dirs, session, file)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // published already, so kept before it was
	}
	if err != nil {
		return false, fmt.Errorf("keeping %s of session %q for the fleet: %w", file, session, err)
	}
	return ledgerOf(b.dirs).keep(entry{session, file}, data)
}
