package fleetbus

import (
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
