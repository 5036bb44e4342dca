// Package relay is the provider-neutral relay engine (DESIGN 5, "The
// relay"): it takes the messages producers publish in a daemon's outbox
// and posts them to the chat service through a Poster, FIFO per session,
// each part exactly once across kill -9 at any instruction.
//
// The invariant it keeps: a part is requested only after an attempt record
// for it is in the journal, and a part attempted but not known done is
// resolved by looking it up at the service (Poster.Lookup), never by
// guessing, before anything after it in its session is posted. A file
// leaves the outbox only once every part of it is done.
package relay
