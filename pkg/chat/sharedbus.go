package chat

import (
	"context"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/relay"
)

// SharedBus is a relay's bus when it is shared beyond this machine (a
// fleet's, DESIGN 10): the relay posts what every machine forwarded into
// it and keeps its journal there, so a takeover elsewhere neither loses
// nor repeats a message. The daemon's wiring makes it from the claim
// (Owners); the runtime knows nothing of where it lives.
type SharedBus interface {
	// Dirs is the bus the relay reads instead of the local one.
	Dirs() bus.Dirs
	// Journal is where the relay's journal lives.
	Journal() relay.JournalStore
	// Sync takes the shared outbox, before the relay looks at its own
	// (what a predecessor finished is no longer there), and returns the
	// revision Run follows from.
	Sync(ctx context.Context) (rev int64, err error)
	// Run keeps the relay's outbox in step with the shared one until ctx
	// is done.
	Run(ctx context.Context, rev int64)
	// Finish says a message left the relay's outbox for good. One not
	// finished by the time ctx ends is the next pass's.
	Finish(ctx context.Context, id string)
	// KeepInbox is the inbound side's inbound.Options.Keep: what the
	// daemon lands is shared too, so every machine's inbox gets it.
	KeepInbox(session, file string) (copied bool, err error)
}
