package faketelegram

import "time"

// User is a Telegram user (or bot) as the API shows it.
type User struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	Username  string `json:"username,omitempty"`
}

// Chat is a supergroup the fake serves.
type Chat struct {
	// ID is the chat's id, a supergroup's "-100..." one.
	ID int64
	// Title is its title; DefaultChatTitle when empty.
	Title string
	// Forum is set when topics are enabled.
	Forum bool
	// LastMessageID is the id of the newest message before the fake
	// starts; 0 means 1: the chat's creation, a service message that
	// exists and that nobody can edit. The next message takes the next id.
	LastMessageID int64
}

// Defaults of the chat a fake serves when Options.Chats is empty.
const (
	DefaultChatID    int64 = -1001000000001
	DefaultChatTitle       = "Fake Group"
)

// Entity is a MessageEntity: offset and length count UTF-16 code units.
type Entity struct {
	Type     string `json:"type"`
	Offset   int    `json:"offset"`
	Length   int    `json:"length"`
	URL      string `json:"url,omitempty"`
	User     *User  `json:"user,omitempty"`
	Language string `json:"language,omitempty"`
}

// Pings says whether the entity notifies a user: an @username mention
// (which the service creates from plain text) or a text_mention.
func (e Entity) Pings() bool { return e.Type == "mention" || e.Type == "text_mention" }

// Service messages a fake creates.
const (
	ServiceTopicCreated = "forum_topic_created"
	ServiceTopicClosed  = "forum_topic_closed"
	serviceChatCreated  = "group_chat_created" // the chat's first message, Chat.LastMessageID
)

// Message is one message as the fake stores it.
type Message struct {
	Chat int64
	ID   int64 // sequential in its chat, whoever wrote it
	// Thread is the forum topic (its creation message's id) the message is
	// in; in a chat without topics, the root of the reply chain a reply
	// belongs to. 0 for neither.
	Thread int64
	// ReplyTo is the message it explicitly replies to, 0 for none.
	ReplyTo int64
	From    User
	Date    time.Time
	// Text is the text as stored: trimmed of surrounding whitespace, as
	// the service trims it; the latest edit's when edited.
	Text string
	// Entities are the text's entities as stored: those the client sent,
	// merged with those the service finds in the text itself (mentions,
	// hashtags, URLs...) where they do not overlap.
	Entities []Entity
	// ParseMode, LinkPreview (link_preview_options as sent, JSON) and
	// NoWebPreview (disable_web_page_preview) are the raw parameters of
	// the call that set Text, "" when not sent.
	ParseMode, LinkPreview, NoWebPreview string
	// Keyboard is its inline keyboard (reply_markup) as the call that set
	// Text left it: an edit without one removes it. nil for none.
	// SentKeyboard is the one sendMessage posted it with.
	Keyboard, SentKeyboard Keyboard
	// Document is the file a document message carries, nil for none;
	// Caption (with CaptionEntities) is then its text, which Text is not.
	Document        *Document
	Caption         string
	CaptionEntities []Entity
	// Service is the kind of a service message (ServiceTopicCreated...),
	// "" for a text message. TopicName is a created topic's name.
	Service, TopicName string
	// Edits are the texts (a document's captions) it had before each
	// edit, oldest first.
	Edits    []string
	EditDate time.Time
	// Deleted is set once DeleteMessage (or DeleteTopic) removed it.
	Deleted bool
	// Reactions are the bot's reactions on it (setMessageReaction
	// replaces them); ReactRequests counts the requests.
	Reactions     []string
	ReactRequests int
}

// Pings says whether the message notifies anyone through its entities.
func (m Message) Pings() bool {
	for _, e := range m.Entities {
		if e.Pings() {
			return true
		}
	}
	return false
}

// Update kinds.
const (
	KindMessage       = "message"
	KindEditedMessage = "edited_message"
	KindReaction      = "message_reaction"
	KindCallbackQuery = "callback_query"
)

// Update is one update the fake queued for the bot.
type Update struct {
	ID        int64
	Kind      string // KindMessage...
	Chat      int64
	MessageID int64
	// Deliveries counts the getUpdates answers that carried it.
	Deliveries int
	// Confirmed is set once a getUpdates offset above ID confirmed it; it
	// is never delivered again.
	Confirmed bool
}
