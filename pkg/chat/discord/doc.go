// Package discord is Discord, all of it, behind chat.Provider (Provider):
// the gateway transport over a gateway client of its own (gateway.go:
// HELLO, jittered heartbeats with ACK tracking, IDENTIFY or RESUME, op 7
// and op 9, the close codes that are terminal or end the session; health
// from READY and heartbeat ACKs), whose session a stopping daemon hands
// to the name's next owner to RESUME (handover.go), and the relay's poster over Discord's REST API
// through discordgo, with discordgo's hidden retries off (a 502 retried
// blindly doubles a message) and its rate-limit waits made cancellable,
// which is also the inbound side's history and reactions.
//
// A session is a root message in the parent channel, a public thread started
// from it, and every later part in that thread. Each post carries a nonce
// derived from the part's key with enforce_nonce, so a repeat inside
// Discord's nonce window returns the message already made instead of making
// another; after the window a part is found by the bot's own messages after
// the last part known done, matched by content.
package discord
