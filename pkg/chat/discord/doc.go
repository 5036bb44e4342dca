// Package discord is Discord, all of it, behind chat.Provider (Provider):
// the gateway transport (health from READY and heartbeat ACKs, the close
// codes that are terminal), and the relay's poster over Discord's REST API
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
