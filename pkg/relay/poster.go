package relay

import (
	"context"
	"io"
	"time"
)

// Poster is one chat service as the relay uses it; the Discord and Slack
// adapters implement it. Every call is one request (no hidden retries: a
// request that may have been accepted is never sent again blindly) and
// honours ctx. A failure is an *Error saying what kind it is; any other
// error is taken as Uncertain.
//
// Shape of a session at the service: a root message in the channel (the
// session's title line), a thread under it (Discord: a thread started from
// the root message; Slack: the root's reply thread), and every later part
// posted in that thread.
type Poster interface {
	// PartLimit is the longest part the service takes, in Unicode code
	// points of the text as the relay renders it (before any escaping the
	// adapter applies).
	PartLimit() int
	// CheckChannel proves that the configured channel exists and can be
	// posted to (Discord: GET channel; Slack: conversations.info). A
	// wrong id is an *Error of kind Blocked with Reason ChannelUnavailable.
	CheckChannel(ctx context.Context) error
	// Post posts one part: in the channel when p.Thread is empty (a
	// session's root), else in that thread. It returns the service's id
	// of the message (Discord message id; Slack ts). The part carries
	// p.Key invisibly where the service allows it (Discord nonce with
	// enforce_nonce; Slack message metadata), so Lookup can find it.
	Post(ctx context.Context, p Part) (remoteID string, err error)
	// StartThread makes the thread of a session whose root was posted as
	// rootID and returns the thread's id. It must be safe to repeat: a
	// thread that already exists for that root is success (Slack: the
	// thread is the root's ts, nothing to create).
	StartThread(ctx context.Context, rootID, name string) (threadID string, err error)
	// Edit replaces the text of an earlier part in place. Repeating it is
	// harmless (the same text again).
	Edit(ctx context.Context, e EditRequest) error
	// Archive ends a session's thread (Discord: archived and locked;
	// Slack: nothing to do). Repeating it is harmless.
	Archive(ctx context.Context, threadID string) error
	// Lookup resolves a part that was attempted but not known done: was it
	// accepted? after is the service id of the last part known done in
	// the same thread (or channel, for a root), "" when none is; the part
	// can only lie after it. found with the remote id when the service
	// has it; not found when it is sure the part was never accepted.
	// Anything it cannot be sure of is an error, and the part stays
	// unresolved. A lookup may resolve by posting again when the service
	// itself guarantees that a repeat is not a double (Discord's nonce
	// with enforce_nonce, inside its window): found is then true.
	Lookup(ctx context.Context, p Part, after string) (remoteID string, found bool, err error)
	// Files are the service's limits on files; a message over them fails
	// before any request (DESIGN 5, "Files").
	Files() FileLimits
	// Threads is how a thread start whose answer was lost is resolved:
	// nil when StartThread is safe to repeat (it is simply made again),
	// else the lookup asked first (Telegram: a second createForumTopic
	// makes a second topic).
	Threads() ThreadLookup
	// PlacesApart says whether the service's lookups tell two sessions'
	// roots and threads apart (a key, a nonce, metadata). When they do
	// not (Telegram's id probe: two roots both lie in the chat), the
	// relay keeps at most one place in doubt at a time (placeturn.go).
	PlacesApart() bool
	// Floors is nil, or, for a poster whose lookup probes ids upwards
	// from a proven lower bound (Telegram), what says the After an
	// attempt journals.
	Floors() Floors
}

// ThreadLookup is what a Poster whose StartThread is not safe to repeat
// gives as its Threads. A thread start whose answer was lost is resolved
// by LookupThread
// before StartThread is called again, as Lookup resolves a post: p.Key
// is the thread's key, p.Text its name, p.Thread the root it was started
// from; found with the thread's id; not found only when the service
// proves no such thread was made; anything else an error.
type ThreadLookup interface {
	LookupThread(ctx context.Context, p Part) (threadID string, found bool, err error)
}

// Floors is a Poster's Floors when its lookup probes the channel's ids
// upwards from a proven lower bound (Telegram's id probe: message ids
// are sequential). Each attempt journals as its After what Floor says,
// before the request is made, and a lookup of it is handed that back: a
// bound learned only after the request could lie above the part looked
// for, so a lookup never starts from one.
type Floors interface {
	// Floor is the After an attempt journals, given last, the last part
	// done in its place ("" for none): an id the part, if accepted, lies
	// after, known now (last, or a higher one the poster knows exists).
	Floor(last string) string
	// Saw tells the poster of a service id the relay's journal
	// confirmed, as the journal is read at start: it exists.
	Saw(remoteID string)
}

// Part is one request's worth of a message: the unit the journal records.
type Part struct {
	// Key names the part uniquely for this daemon, "<message id>/<part>";
	// the service-side lookups match on it.
	Key     string
	Session string
	// Thread is the service id of the session's thread; empty for a
	// session's root message, posted in the channel.
	Thread string
	// Text is the part as rendered (redacted, split), the exact text
	// journaled and, before the adapter's own escaping, posted.
	Text string
	// FirstAttempt is when this part was first attempted: a lookup may
	// depend on how long ago that was (Discord's nonce window).
	FirstAttempt time.Time
	// Choices, set on an ask's last part, are its buttons: the service
	// shows one per choice on the posted message, and hands a click's
	// Data back. Post and Lookup treat a part with choices alike (a
	// probe by edit carries them, so that an unchanged message is still
	// "not modified"). Nil for every other part.
	Choices []Choice
	// Ping, set only on an ask's last part when the spec says pingOnAsk,
	// are the user ids the part mentions, through the service's explicit
	// allowance; no other part ever mentions anyone.
	Ping []string
	// Confirmed, set for a lookup, reports whether a service id is one
	// the relay knows a part was confirmed with (any session's): a lookup
	// that probes ids by editing them (Telegram) must leave those alone.
	Confirmed func(remoteID string) bool
	// After, set for a lookup, is the attempt's After: Lookup's after,
	// for a ThreadLookup, which is handed no other.
	After string
	// Upload, set on a file part, is the one file the part posts; Text
	// is then empty. Post uploads it in p.Thread as one message; Lookup
	// finds that message by the service's own means (DESIGN 5, "Files").
	Upload *Upload
	// Stage, set on a file part's Post, durably records a token of the
	// service's (Slack's file id) before the request that makes the file
	// visible; a lookup of the part gets it back as Staged ("" when none
	// was recorded). Stage returns once the record is durable.
	Stage  func(ctx context.Context, token string) error
	Staged string
}

// Upload is the file of a file part.
type Upload struct {
	Name        string // as the service shows it
	ContentType string // never empty: sniffed when the message gave none
	Size        int64  // bytes Open reads
	// Sum is the hex SHA-256 of the content Open reads: a lookup by
	// content may match on it where the service reports one.
	Sum string
	// Open returns the content from its start; each request opens it
	// afresh, so a retry re-reads it rather than holding it in memory.
	Open func() (io.ReadCloser, error)
}

// FileLimits are a service's limits on files.
type FileLimits struct {
	// MaxBytes is the largest file the service takes from this bot.
	MaxBytes int64
	// MaxFiles is the most files a message may carry; 0: the service
	// takes none.
	MaxFiles int
	// Service names the service in a limit's failure ("Discord").
	Service string
}

// EditRequest edits an earlier part. An edit leaves the message with no
// buttons: an ask is edited only to show its outcome.
type EditRequest struct {
	Thread   string // where the part is ("" for a root, in the channel)
	RemoteID string // the part's service id
	Text     string // the new text, rendered
}
