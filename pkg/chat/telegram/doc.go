// Package telegram is Telegram as a chat provider (DESIGN 5, "Telegram"):
// the Bot API through github.com/go-telegram/bot, long polling for
// inbound, a supergroup as the channel, a forum topic per session when
// the group has topics (else a root message and its replies).
//
// The Bot API has neither an idempotency key nor a history to read, so
// both directions are exactly once by other means: inbound, the
// getUpdates offset that confirms an update is persisted only after the
// update landed (offset.go, poll.go); outbound, a post whose answer was
// lost is resolved by probing the sequential message ids above the last
// confirmed one with an edit carrying the same text (probe.go,
// lookup.go), never by a blind re-post.
package telegram
