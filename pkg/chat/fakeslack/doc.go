// Package fakeslack is a local stand-in for Slack's Web API and Socket Mode,
// good enough for github.com/slack-go/slack v0.35.0 and its socketmode
// client to authenticate, connect, receive events, acknowledge them and post
// messages against it. End-to-end tests and the `reconciler demo` command use
// it; it listens on 127.0.0.1 only. Point a client at it with
// slack.OptionAPIURL(server.URL() + "/api/").
//
// Emulated:
//   - Web API methods auth.test, apps.connections.open (app-level xapp-
//     token; hands out a single-use websocket URL), chat.postMessage (ts,
//     thread_ts; a reply to a reply lands in the parent's thread),
//     conversations.history (top-level messages newest first, limit, latest,
//     oldest, inclusive) and conversations.replies (parent then replies).
//     The token may come as "Authorization: Bearer" or a "token" form field;
//     form and JSON bodies are read. Errors are Slack's: not_authed,
//     invalid_auth, not_allowed_token_type, channel_not_found, no_text,
//     msg_too_long, thread_not_found, unknown_method; HTTP 429 with
//     Retry-After when a rate limit is injected.
//   - Socket Mode: hello on connect (num_connections, debug_info,
//     connection_info), websocket pings at a fixed interval, events_api
//     envelopes carrying message events for every message (injected, and the
//     bots' own posts as Slack echoes them) to one open connection of every
//     app, acks recorded by envelope_id, unacknowledged envelopes redelivered
//     with retry_attempt on the app's next connection, and disconnect
//     (refresh_requested) on request.
//   - Faults a test flips at run time: drop every connection, stop (and
//     resume) pings, reject a token (invalid_auth everywhere, its sockets
//     cut), delay hello, rate-limit the next chat.postMessage calls.
//   - Observation: per app token open sockets, the most ever open at once,
//     sockets opened; every message; every envelope and whether it was acked;
//     WaitFor to block until a condition holds.
//
// Not emulated: OAuth, scopes and token rotation, the RTM API, slash commands
// and interactivity payloads, blocks and attachments beyond counting as
// content, cursors (has_more is set, next_cursor is always empty), edits,
// deletes, reactions, files, users and channel listings, the 3 s ack timeout
// (redelivery happens on reconnect only), and per-method rate-limit tiers.
package fakeslack
