// Package fakediscord is a local stand-in for Discord's REST API and gateway,
// good enough for github.com/bwmarrin/discordgo v0.29.0 to connect, identify,
// heartbeat, resume and post messages against it. End-to-end tests and the
// `reconciler demo` command use it; it listens on 127.0.0.1 only.
//
// Emulated:
//   - REST (API v9; the version segment is not checked): GET /gateway,
//     GET /gateway/bot, GET /users/@me, GET /applications/@me (id, name,
//     flags: GATEWAY_MESSAGE_CONTENT_LIMITED unless SetMessageContentIntent
//     turned it off), GET /guilds/{id} (owner a human; roles @everyone,
//     whose ID is the guild's, and each bot's managed role granting
//     BotPermissions, permissions as decimal strings), GET
//     /guilds/{id}/members/{uid} (a bot with its role; 10004 and 10007
//     for an unknown guild or member),
//     GET /channels/{id} (guild_id, type 0, permission_overwrites),
//     POST and GET /channels/{id}/messages (history newest first, limit
//     1-100, default 50; before gives the newest ones before an ID, after
//     the ones right after it, still newest first, so a client pages
//     forward by taking the first as its next after),
//     GET /channels/{id}/messages/{mid}, PATCH /channels/{id}/messages/{mid}
//     (its author only), PUT /channels/{id}/messages/{mid}/reactions/{emoji}/@me
//     (204, idempotent per emoji and bot; a unicode emoji, else 400 10014;
//     refused 50083 in an archived thread, which it does not unarchive;
//     the channel's bucket for route limits; REST messages carry reactions
//     as {count, count_details, me, emoji:{id:null, name}}),
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
//     A message create may be multipart, as Discord takes files: the JSON
//     in payload_json, each file in a part named files[n] with its
//     filename (other parts are ignored); at most 10 files (else 400
//     50035) of 10 MiB each (else 413 40005), a bot's default limits. The
//     nonce, faults (HoldPosts, AcceptThenFail, RateLimitNext) and
//     counts apply to it as to any post. A message's attachments carry
//     id, filename (sanitized: a space becomes '_', other characters than
//     ASCII letters, digits, '.', '-' and '_' are dropped; title then
//     keeps the name as sent), size, content_type (the part's, else from
//     the extension) and url and proxy_url on the fake's own CDN path,
//     GET /attachments/{channel}/{id}/{filename}, served without a token
//     (a request carrying one is counted: Snapshot.TokensToCDN).
//     A message's components are action rows (type 1) of buttons (type
//     2: style 1-4, custom_id, label, disabled), validated as Discord
//     does (at most 5 rows of 1-5 buttons, custom_id 1-100 code points
//     and unique in the message, label 1-80; else 400 50035), returned on
//     GET and in dispatches with Discord's numbering ids; a PATCH with
//     components replaces them whole, null or [] removes them, without
//     keeps them. Users get a global_name with SetGlobalName (else null).
//     Every message object carries type 0, channel_id (and guild_id in
//     gateway dispatches only, as on Discord), an RFC 3339 timestamp,
//     edited_timestamp once edited, mentions parsed from <@ID>, and author
//     {id, username, bot}: bot for the bots' own posts and
//     InjectBotMessage, not for InjectMessage's humans.
//   - Gateway over plain JSON text frames: HELLO, IDENTIFY -> READY then
//     GUILD_CREATE (with GUILDS), heartbeat -> HEARTBEAT_ACK, RESUME ->
//     replay of the missed dispatches then RESUMED (or op 9 INVALID_SESSION
//     when the session is unknown, was closed with 1000/1001, or the backlog
//     is gone; Snapshot counts IDENTIFYs and successful RESUMEs per token),
//     op 7 RECONNECT on request (AskReconnect), op 9 INVALID_SESSION with
//     d true or false on request (InvalidateSessions), a connection that
//     looks healthy and delivers nothing (Deafen; a RESUME replays what it
//     held back), op 1 HEARTBEAT from the gateway on request
//     (RequestHeartbeat; TokenStats.HeartbeatSeq is the sequence the
//     answer carried), RESUMEs held unanswered until released
//     (HoldResumes, ReleaseResumes: what is dispatched meanwhile is
//     replayed before RESUMED),
//     MESSAGE_CREATE for every message (posted or injected), MESSAGE_UPDATE
//     (a bot's PATCH or EditInjected), MESSAGE_REACTION_ADD, THREAD_CREATE
//     and THREAD_UPDATE, sent to every session in the guild whose intents
//     ask for them, buffered for sessions that are away. Close codes 4001,
//     4002, 4003, 4004, 4005 and 4014 as Discord uses them.
//   - Interactions: Click is a user clicking a button: the fake makes a
//     type 3 MESSAGE_COMPONENT interaction (snowflake id, token,
//     application_id, guild_id, channel_id, channel, the message,
//     member.user, data {custom_id, component_type 2}; a button an edit
//     took away can still be clicked, as from a client that has not seen
//     the edit yet) and dispatches
//     INTERACTION_CREATE, which needs no intent, to the sessions of the
//     bot that posted the message. POST /interactions/{id}/{token}/callback
//     (no bot token) takes the answer: type 4 (a message, with flags 64
//     ephemeral: stored nowhere), 6 (deferred update) or 7 (update the
//     message); 204 for the first valid one within
//     Options.InteractionDeadline (3 s), then 400 40060 "Interaction has
//     already been acknowledged.", 404 10062 "Unknown interaction" when
//     late or unknown. Each answer is recorded (Snapshot.Interactions).
//   - Intents: IDENTIFY's intents are kept per session (and survive
//     RESUME). MESSAGE_CREATE and MESSAGE_UPDATE go only to sessions with
//     GUILD_MESSAGES, THREAD_CREATE, THREAD_UPDATE and GUILD_CREATE only
//     with GUILDS, MESSAGE_REACTION_ADD only with GUILD_MESSAGE_REACTIONS.
//     Without MESSAGE_CONTENT a dispatch's content (and embeds, attachments,
//     components) is empty unless the receiving bot wrote the message or it
//     mentions the bot; each session's backlog holds its own view, so a
//     RESUME replays the same. MESSAGE_CONTENT is privileged: with
//     SetMessageContentIntent(token, false) an IDENTIFY asking for it is
//     closed with 4014 "Disallowed intent(s).", READY's application flags
//     lose GATEWAY_MESSAGE_CONTENT, and REST hides content by the same rule
//     (live sessions keep what they identified with). Other privileged
//     intents (members, presences) are granted without checks.
//   - Faults a test flips at run time (the shared ones of Server.Faults
//     and Discord's own), other users' messages (InjectMessage,
//     InjectBotMessage, EditInjected, DeleteMessage) and what a test
//     observes (Snapshot, Requests, WaitFor): each method says what it does
//     on the wire.
//
// Not emulated: zlib or zstd transport compression and ETF encoding (frames
// are always uncompressed JSON text, which discordgo accepts whatever its
// IDENTIFY asks for), sharding, DMs and their intents, 4013 invalid
// intents, presence, voice, members (dispatches carry no member object),
// roles beyond @everyone and the bots' own, permissions other than View
// Channel and Manage Threads (a bot without Send Messages, Create Public
// Threads, Send Messages in Threads, Add Reactions or Read Message History
// may still post, open threads, react and read; doctor sees them missing),
// slash commands, modals, select menus, link, premium and emoji buttons,
// callback types other than 4, 6 and 7 (400 50035), follow-up messages
// and editing an interaction's response, DM interactions (user instead of
// member), the type 19 of a component's visible reply (the fake's is 0),
// deletes, removing reactions and
// listing reactors, custom emojis, the attachments array of a payload
// (files are taken in files[n] order, named as their parts say), the
// CDN's signed-link expiry, modifying a text channel,
// the global rate limit, Discord's trimming of whitespace around content,
// the server-side heartbeat timeout and session expiry, and op 7 or op 9
// sent on the service's own initiative (only when a test asks).
package fakediscord
