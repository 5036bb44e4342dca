package relay

import (
	"context"

	"gjc.dev/reconciler/pkg/bus"
)

// busBlock keys the block of a bus that cannot be trusted.
const busBlock = "\x00bus"

// openBusOnce opens the bus for one look (bus.OpenBox judges its
// directories through their descriptors). A refusal blocks the relay
// (RelayBlocked, saying why) and touches nothing; a success lifts that.
func (r *Relay) openBusOnce() (*bus.Box, error) {
	box, err := bus.OpenBox(r.opts.Bus)
	if err == nil {
		r.clearBlock(busBlock)
		return box, nil
	}
	b := &Block{Reason: ReasonRelayBlocked, Message: "the bus cannot be trusted; nothing in it is read, posted or moved until it is repaired: " + err.Error()}
	r.mu.Lock()
	prev := r.blocks[busBlock]
	r.mu.Unlock()
	if prev == nil || *prev != *b {
		r.opts.Log.Error(err, "the relay's bus cannot be trusted; nothing in it is read, posted or moved until it is repaired")
	}
	r.setBlock(busBlock, b)
	return nil, err
}

// openBus opens the bus, waiting with back-off while it is refused;
// errStopped when the relay stops first.
func (r *Relay) openBus(ctx context.Context) (*bus.Box, error) {
	b := r.newBackoff()
	for {
		box, err := r.openBusOnce()
		if err == nil {
			return box, nil
		}
		if !b.wait(ctx) {
			return nil, errStopped
		}
	}
}
