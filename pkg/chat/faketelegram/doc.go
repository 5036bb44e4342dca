// Package faketelegram is a local stand-in for Telegram's Bot API, good
// enough for github.com/go-telegram/bot v1.19.0 to call getMe, long-poll
// getUpdates and post, edit and react against it. End-to-end tests and
// the demo use it; it listens on 127.0.0.1 only. Point a client at it
// with bot.WithServerURL(server.URL()) and server.Token().
//
// Emulated (the wording of every answer is the Bot API server's own, from
// its source, tdlib/telegram-bot-api, where the library does not show it):
//   - Requests: POST or GET /bot<token>/<method>, the method's name in any
//     case; parameters from the query and a url-encoded, multipart or
//     JSON body, objects as JSON text. Answers {"ok":true,"result":...}
//     or {"ok":false,"error_code":N,"description":"..."} with HTTP status
//     N; a 429 carries parameters.retry_after and a Retry-After header. A
//     token without a colon: 401 "Unauthorized: invalid token specified";
//     another bot's or a revoked one: 401 "Unauthorized"; an unknown
//     method: 404 "Not Found: method not found".
//   - Supergroups (Options.Chats), with topics or without. Message ids are
//     sequential per chat, whoever writes: the bot, InjectMessage's
//     people, and service messages (the chat's creation, a topic's
//     creation and closing) each take the next one.
//   - getMe; getUpdates: offset confirms the updates below it (negative:
//     keeps the last -offset), limit 1-100, timeout up to 50 s, and
//     allowed_updates kept until changed, applied to updates made after
//     it (default: all but message_reaction). Updates are kept until
//     confirmed. One getUpdates waits at a time: a new one that has to
//     wait ends the waiting one with 409 "Conflict: terminated by other
//     getUpdates request; make sure that only one bot instance is
//     running"; a webhook makes getUpdates 409 "Conflict: can't use
//     getUpdates method while webhook is active; use deleteWebhook to
//     delete the webhook first". setWebhook, deleteWebhook (counted) and
//     getWebhookInfo.
//   - sendMessage (message_thread_id, reply_parameters or
//     reply_to_message_id with allow_sending_without_reply, entities,
//     parse_mode, link_preview_options, reply_markup): the text trimmed of
//     surrounding whitespace and at most 4,096 characters; the entities
//     the service finds in plain text (mention, hashtag, cashtag,
//     bot_command by tdlib's rules; url, bare domains like README.md
//     among them, and email simplified) added to those sent, so a bot's
//     "@name" is a mention. Other bots' messages never become updates. In a forum a message
//     carries message_thread_id, is_topic_message and, replying to nothing
//     else, the topic's creation as reply_to_message; without topics
//     message_thread_id is ignored and a reply's thread is its chain's
//     root. Refusals: chat not found, bot was kicked, message text is
//     empty, message is too long, message thread not found (an unknown or
//     deleted topic, or General, 1), message to be replied not found,
//     TOPIC_CLOSED (a closed topic, for a bot that may not manage
//     topics), unsupported parse_mode.
//   - editMessageText: "message to edit not found" (no such id, or
//     deleted), "message can't be edited" (another author's, or a service
//     message), "message is not modified: specified new message content
//     and reply markup are exactly the same as a current content and
//     reply markup of the message" (same text, entities and inline
//     keyboard, and, for a text with a link, the same link preview on or
//     off). An edit without reply_markup removes the keyboard.
//   - sendDocument (a multipart upload, "attach://<name>", or a stored
//     file's file_id; placed as sendMessage places a text; a caption of
//     at most 1,024 characters): the message's document {file_id,
//     file_unique_id, file_name, mime_type (from the name's extension, as
//     the Bot API server hands tdlib the file under its name), file_size}.
//     Refusals: there is no document in the request, wrong file
//     identifier/HTTP URL specified, message caption is too long; a file
//     over 50 MB: 413 "Request Entity Too Large". An upload is a post:
//     the chat's budget, RateLimitNext, AcceptThenFail, Posts and
//     HoldNext ("" or HoldMessages) apply to it.
//   - editMessageCaption in tdlib's order: "message to edit not found",
//     "message can't be edited", "there is no caption in the message to
//     edit" (a text), then "message is not modified: ..." for the same
//     caption and keyboard; editMessageText of a document: "there is no
//     text in the message to edit".
//   - getFile {file_id, file_unique_id, file_size, file_path} ("file_id
//     not specified", "invalid file_id", over 20 MB "file is too big")
//     and the download GET /file/bot<token>/<file_path>, for the bot's
//     token only (anything else 404 "Not Found"). InjectMessage's
//     Inbound.File makes a person send a document, its text the caption.
//   - Inline keyboards (reply_markup on sendMessage and editMessageText):
//     callback and URL buttons with a style, refused in the Bot API
//     server's words (keyboard.go; callback_data over 64 bytes:
//     BUTTON_DATA_INVALID). Click makes a person press a callback button:
//     a callback_query update {id, from, message (with its keyboard,
//     chat and message_thread_id), chat_instance, data}, kept until
//     confirmed like any other. answerCallbackQuery (recorded: Snapshot's
//     CallbackQueries, AwaitAnswer) takes a query once, within
//     Options.CallbackTimeout of its click; after that, a second time or
//     for an unknown id: "query is too old and response timeout expired
//     or query ID is invalid"; a text over 200 characters:
//     MESSAGE_TOO_LONG.
//   - createForumTopic (the topic's id is its creation message's; a name
//     over 128 characters is cut, an empty one refused; "the chat is not
//     a forum"), closeForumTopic and reopenForumTopic (TOPIC_NOT_MODIFIED
//     when already so), editForumTopic (the same name again:
//     TOPIC_NOT_MODIFIED, a probe that changes nothing; an id that is no
//     topic: TOPIC_ID_INVALID; a rename takes an id),
//     setMessageReaction (the bot's one emoji from the Bot API's list,
//     replacing its earlier one; REACTION_INVALID, REACTIONS_TOO_MANY,
//     "message to react not found"), getChat, getChatMember (the bot an
//     administrator that may manage topics, unless SetBotAdmin; a member
//     gets "not enough rights to create a topic").
//   - Privacy mode (SetPrivacy, off at start): getMe's
//     can_read_all_group_messages; with it on, a bot that is no admin of
//     a chat gets only the messages that reply to its own, carry a
//     command or mention it.
//   - Rate: a per-chat budget (Options.Limit, SetLimit; TelegramLimit is
//     the documented one) on sendMessage, sendDocument, the edits
//     (editMessageText, editMessageCaption, editForumTopic),
//     createForumTopic and closeForumTopic: over it, 429 for that chat
//     only, counted in Snapshot.RateLimited.
//   - People (InjectMessage, InjectEdit, InjectReaction, DeleteMessage,
//     DeleteTopic), faults (the shared RateLimitNext, AcceptThenFail and
//     SetSlow; FailBefore, FailAfter, HoldNext, SetTokenRevoked,
//     SetBotKicked, SetChannelUnknown, SetWebhook, SetUnavailable,
//     DropConnections, StartRival: a second consumer of the token) and
//     the oracle (Snapshot: messages, topics, updates, polls in flight,
//     409s, deleteWebhook calls, the bot's posts stored twice; WaitFor;
//     Requests): each method says what it does on the wire. The names
//     the other fakes share
//     (SetChannelUnknown, SetTokenRejected, DropConnections,
//     RateLimitNext, AcceptThenFail) let pkg/chat/providertest drive it
//     as it drives them.
//
// Not emulated: markup parsing (a parse_mode is recorded, the text kept
// as sent), phone number and bank card entities, bare domains under TLDs
// outside urls.go's list, the service's 3 s delay between 409s and its
// throttling of repeated short polls, limits on edits, other methods
// (photos, videos and other media, editMessageReplyMarkup, chat
// administration), reply keyboards
// and force replies, buttons other than callback and URL ones, inline
// mode, other chat kinds, and message_reaction_count and chat_member
// updates.
package faketelegram
