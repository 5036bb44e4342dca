// Package doctor is what `reconciler doctor` reports: a Line per check,
// ok with what was found or failed with what to do, and the checks that
// need no chat service (the clock against a service's Date, the agent
// dir, the loop's socket, lingering). The checks against a service are
// each provider's (chat.Provider's Doctor), since only it knows its API.
//
// A check never posts, edits or reacts: doctor runs beside a live bot and
// before the first one, and must leave the channel as it found it.
package doctor

import "time"

// RequestTimeout bounds each request a provider's checks make.
const RequestTimeout = 10 * time.Second
