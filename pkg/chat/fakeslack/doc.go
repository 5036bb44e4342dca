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
//     thread_ts; a reply to a reply lands in the parent's thread; the raw
//     text, message metadata, unfurl_links and unfurl_media stored),
//     chat.update (the author only; earlier texts kept; blocks replaced
//     when the call brings them, blocks=[] removing them, kept when it
//     does not), Block Kit blocks on both (stored with the block_ids and
//     action_ids Slack fills in, returned by history, replies and events;
//     section and actions blocks and button elements checked against
//     Slack's limits: at most 50 blocks, a section's text 3,000
//     characters, an actions block 1 to 25 elements, a button's
//     plain_text label 75, action_id 255, value 2,000, style primary or
//     danger, block_id 255 and unique in the message, action_id unique in
//     its block; answered invalid_blocks with response_metadata.messages
//     naming each fault's JSON pointer, or invalid_blocks_format),
//     chat.postEphemeral (recorded in Snapshot.Ephemerals for the user,
//     in the thread thread_ts names; nothing stored in the channel),
//     reactions.add (a bot's reaction by emoji name on a message, once per
//     bot and name; the fake knows no emoji list, so only an empty name,
//     one with spaces or one wrapped in colons is invalid_name),
//     conversations.info
//     (is_member false while the bots are out of the channel, is_archived),
//     conversations.history (top-level messages newest first) and
//     conversations.replies (the parent first on every page, outside limit,
//     then replies oldest first, each exactly once across pages),
//     both with limit, latest, oldest (exclusive unless inclusive),
//     Slack-shaped cursors (has_more, next_cursor), reactions ({name, users,
//     count}), edited, and message metadata returned only with
//     include_all_metadata. The token may come as "Authorization: Bearer"
//     or a "token" form field; form and JSON bodies are read. Errors are
//     Slack's: not_authed, invalid_auth, not_allowed_token_type,
//     channel_not_found, not_in_channel, no_text, msg_too_long,
//     is_archived, invalid_metadata_format, thread_not_found, message_not_found,
//     cant_update_message, already_reacted, invalid_name, no_item_specified,
//     bad_timestamp, invalid_cursor, invalid_blocks, invalid_blocks_format,
//     user_not_in_channel (chat.postEphemeral without a user),
//     unknown_method; HTTP 429 with
//     Retry-After when a rate limit is injected or a method's limit is hit.
//   - Files (checked through slack-go's UploadFileContext,
//     GetUploadURLExternalContext, UploadToURL, CompleteUploadExternalContext,
//     GetFileInfoContext and GetFileContext; the rest as Slack's method
//     reference says): files.getUploadURLExternal (filename, length > 0,
//     else missing_argument) hands out a file id and an upload URL on this
//     server, which takes the bytes raw or as a multipart file part
//     without a token (the URL is the credential) and answers "OK - <n>";
//     the bytes are hashed, not kept. files.completeUploadExternal (files,
//     channel_id, thread_ts, initial_comment, title) shares the uploaded
//     files in one message of the bot's in the thread (thread_not_found
//     for a thread that is not there, channel errors as chat.postMessage);
//     it "can only be called once" per file, as the reference says: a
//     repeat, or a file never uploaded, answers file_not_found (the
//     reference's "could not find the file from the upload ticket"; what
//     Slack answers a repeat is not documented). It is a post for the
//     faults and Snapshot.Posts. files.info answers a completed file with
//     shares {public|private: {channel: [{ts, thread_ts}]}} (after
//     SetShareLag's delay: Slack shares asynchronously) and file_not_found
//     for an upload never completed (assumed: the reference says such an
//     upload is discarded). InjectMessageWithFiles attaches a user's files
//     to a message: files (with url_private_download) in the message, in
//     history and replies, and subtype file_share in its event only; the
//     content is served at url_private(_download) to an accepted bot token
//     holding files:read, anything else redirected to the sign-in page
//     with redir set to the file's path, as files.slack.com does. Scopes
//     files:write and files:read.
//   - Scopes: every answer to an accepted token carries X-OAuth-Scopes (what
//     the token holds: a bot token every scope the relay asks for, for
//     public and private channels and DMs; an app-level token
//     connections:write) and X-Accepted-OAuth-Scopes (what the method
//     takes). SetScopeGranted withholds one; the methods that need it then
//     answer missing_scope with needed (the conversations methods: the
//     scope of the channel's kind, channels: for a C id, groups: for a G
//     id, im: for a D id) and provided.
//   - Socket Mode: hello on connect (num_connections: the app's open
//     sockets, this one included; debug_info, connection_info),
//     websocket pings at a fixed interval, events_api
//     envelopes carrying message events to one open connection of every
//     app, for every message: a human's (client_msg_id; thread_ts and
//     parent_user_id for a reply), the app's own bots' posts as Slack
//     echoes them (bot_id, app_id), another app's bot post (subtype
//     bot_message, bot_id, no user), and every edit, a human's or
//     chat.update's (subtype message_changed, hidden, a ts of its own,
//     message with edited, previous_message). Acks are recorded by
//     envelope_id, a late one too. Slack's 3 s ack timeout
//     (Options.AckTimeout): an envelope not acked within it of a delivery
//     is sent again, to an open socket of the app, with retry_attempt
//     counting up and retry_reason "timeout"; so is one whose socket closed
//     first (to another open socket, or on the app's next hello). After 3
//     retries in all it is given up. Disconnect (refresh_requested) on
//     request. Deafen: the open sockets stay up and pinged but hear no
//     event (sent to them, unacked, retried, given up), as a connection
//     that looks healthy and delivers nothing; a new socket hears.
//   - Interactivity: Click sends the click of a button a message carries
//     as Slack does (to the app the test names: the fake does not pair
//     bot tokens with apps), an interactive envelope with a block_actions payload
//     (user, channel, container, message, actions, trigger_id,
//     response_url) to one open socket of the app, acked and retried as
//     events are. The response_url takes up to 5 ephemeral answers
//     within 30 minutes (recorded in Snapshot.Ephemerals).
//   - Faults a test flips at run time (the shared ones of Server.Faults
//     and Slack's own), other users' messages (InjectMessage,
//     InjectBotMessage, EditInjected, DeleteMessage, DeleteFile: file_deleted
//     from files.info) and what a test
//     observes (Snapshot, Requests, WaitFor, Options.OnAck): each method
//     says what it does on the wire.
//
// Not emulated: OAuth and token rotation, the RTM API, slash commands,
// interactions other than a button's click (menus, modals, shortcuts),
// response_url answers other than ephemeral ones (in_channel,
// replace_original, delete_original: answered 400), the fields of block
// types other than section and actions, attachments beyond counting as
// content, metadata in events and in the answer to
// chat.postMessage, chat.delete and message_deleted events, reactions.remove and reactions.get,
// reaction_added events, thread_broadcast, files.upload (retired),
// files.list and files.delete, Slack Connect's check_file_info files, a
// bot's uploads' content (not kept, so not served), users and channel
// listings, Slack's own spacing of retries (here each comes one AckTimeout
// after the delivery before), Slack's per-tier default limits
// (only those a test sets), and the "ratelimited" error Slack sometimes
// sends with HTTP 200.
package fakeslack
