// Package telegram is Telegram as a chat provider (DESIGN 5, "Telegram"):
// the Bot API through github.com/go-telegram/bot, long polling for
// inbound, a supergroup as the channel, a forum topic per session when
// the group has topics (else a root message and its replies).
//
// The Bot API has neither an idempotency key nor a history to read, so
// both directions are exactly once by other means: inbound, the
// getUpdates offset that confirms an update is persisted only after the
// update landed (offset.go, transport.go); outbound, a post whose answer was
// lost is resolved by probing the sequential message ids above the last
// confirmed one with an edit carrying the same content (probe.go,
// lookup.go), never by a blind re-post.
//
// An ask's buttons are an inline keyboard (content.go); a click is a
// callback_query update, decided by the inbound side and answered with
// answerCallbackQuery before its offset is confirmed, like any update
// (click.go, transport.go).
//
// Every request that posts or edits in the group waits for the group's
// budget (telegram.postsPerMinute; pace.go) before it is sent, so the
// service need not refuse it; a 429 all the same holds the group back
// for its retry_after (gate.go).
package telegram
