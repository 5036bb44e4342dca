// Package fakediscord is a local stand-in for Discord's REST API and gateway,
// good enough for github.com/bwmarrin/discordgo v0.29.0 to connect, identify,
// heartbeat, resume and post messages against it. End-to-end tests and the
// `reconciler demo` command use it; it listens on 127.0.0.1 only.
//
// Emulated:
//   - REST (API v9; the version segment is not checked): GET /gateway,
//     GET /gateway/bot, GET /users/@me, GET /channels/{id},
//     POST and GET /channels/{id}/messages (history newest first, limit,
//     before, after), PATCH /channels/{id}/messages/{mid} (its author only),
//     PATCH /channels/{id} on a thread (name, archived, locked,
//     auto_archive_duration), POST /channels/{id}/threads (forum-style
//     "message" included) and POST /channels/{id}/messages/{mid}/threads.
//     A message's allowed_mentions and flags are recorded as sent. nonce
//     with enforce_nonce: the same author's nonce again within
//     Options.NonceWindow returns the earlier message (200, same ID) and
//     stores nothing; the create answer and MESSAGE_CREATE echo the nonce,
//     fetched messages never carry it. Posting into an archived thread
//     unarchives it, unless it is locked too (400, 50083). Requests need
//     "Authorization: Bot <token>"; a bad or rejected token gets 401.
//     Discord's error codes for an unknown channel or message, an empty or
//     too long message and a second thread on one message are returned.
//   - Gateway over plain JSON text frames: HELLO, IDENTIFY -> READY then
//     GUILD_CREATE, heartbeat -> HEARTBEAT_ACK, RESUME -> replay of the
//     missed dispatches then RESUMED (or op 9 INVALID_SESSION when the session
//     is unknown, was closed with 1000/1001, or the backlog is gone),
//     MESSAGE_CREATE for every message (posted or injected), MESSAGE_UPDATE,
//     THREAD_CREATE and THREAD_UPDATE,
//     sent to every session in the guild, buffered for sessions that are away.
//     Close codes 4001, 4002, 4003, 4004 and 4005 as Discord uses them.
//   - Faults a test flips at run time: drop every gateway connection without a
//     close frame, stop (and resume) acknowledging heartbeats, reject a token
//     (4004 on the gateway, live sessions closed with 4004, 401 on REST),
//     delay READY, answer the next POSTs with 429 and Discord's rate-limit
//     headers, per-route limits (SetRouteLimit: n requests per window per
//     method, route and channel, X-RateLimit-* headers on every answer,
//     429 with retry_after past it), accept then fail (the message is
//     stored and dispatched, then answered 502 or the connection cut), slow
//     REST answers (handled at once, answered late), message and thread
//     POSTs held before anything is stored until released (nothing is
//     stored if the client leaves meanwhile), a channel or thread made
//     unknown (404, 10003).
//   - Observation: per token live sessions, the most ever live at once,
//     IDENTIFY and RESUME counts, heartbeats and 4004 closes; every message
//     (with its nonce, allowed_mentions, flags and earlier contents) and
//     thread (archived, locked); 429s served, message POSTs, held POSTs;
//     WaitFor to block until a condition holds.
//
// Not emulated: zlib or zstd transport compression and ETF encoding (frames
// are always uncompressed JSON text, which discordgo accepts whatever its
// IDENTIFY asks for), sharding, intents (every session gets every event),
// presence, voice, members, roles, permissions, interactions, deletes,
// reactions, attachments (a multipart body's payload_json is read, its files
// are ignored), modifying a text channel, the global rate limit, Discord's
// trimming of whitespace around content, the server-side
// heartbeat timeout and session expiry, and op 7 RECONNECT.
package fakediscord
