package inbound

import "time"

// Event is one message as a chat service delivered it: live, or read from
// a thread's history.
type Event struct {
	// ID is the service's id of the message (Discord snowflake, Slack ts).
	ID string
	// Place is where it was written: a Discord thread's channel id, a
	// Slack thread's root ts; "" when it is in no thread (or another
	// channel), which no session can be.
	Place string
	User  string
	// Bot is set for a message by any bot or app, this daemon's included.
	Bot bool
	// Self is set for a message by this daemon's own bot user: the
	// relay's posts and their edits come back as events, and are counted
	// apart from other bots' so that the counts say something.
	Self bool
	Kind Kind
	Text string
	Time time.Time
	// Files are the files attached to the message, in the service's
	// order; they land beside the reply (DESIGN 5, "Files").
	Files []RemoteFile
}

// RemoteFile is a file attached to a message, as the service describes it.
type RemoteFile struct {
	// ID is the service's id of the file (Discord attachment id, Slack
	// file id, Telegram file_id).
	ID   string
	Name string
	// Size is the size the service reports; -1 when it reports none.
	Size        int64
	ContentType string
	// URL is where the service serves it (Discord, Slack); "" when Fetch
	// finds it itself (Telegram's getFile).
	URL string
}

// Kind says what sort of message an event is.
type Kind int

const (
	// Plain is a message a person wrote (Discord types 0 and 19; Slack
	// no subtype).
	Plain Kind = iota
	// Edit is a change to an earlier message: the earlier one is what
	// landed, so an edit never does.
	Edit
	// Other is anything else: joins, pins, thread events, deletions.
	Other
)

// Reason says why an event was ignored.
type Reason string

const (
	FromSelf     Reason = "self"
	NotSession   Reason = "not-a-session"
	Unauthorized Reason = "unauthorized"
	FromBot      Reason = "bot"
	EditIgnored  Reason = "edit"
	OtherKind    Reason = "other"
	Unusable     Reason = "unusable" // an id, user or text the inbox cannot hold
)

// Reasons are all the reasons, in decide's order.
var Reasons = []Reason{FromSelf, EditIgnored, OtherKind, FromBot, NotSession, Unauthorized, Unusable}

// Outcome is what became of an event.
type Outcome int

const (
	Landed Outcome = iota
	Duplicate
	Ignored
)

func (o Outcome) String() string {
	switch o {
	case Landed:
		return "landed"
	case Duplicate:
		return "duplicate"
	}
	return "ignored"
}
