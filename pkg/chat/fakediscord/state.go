package fakediscord

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// TokenStats counts what one bot token did on the gateway.
type TokenStats struct {
	// Live counts the sessions identified or resumed and not closed, now
	// (Live) and at most (MaxLive).
	fakeserver.Sessions
	Identifies int // IDENTIFY payloads received, accepted or not
	Resumes    int // RESUMEs that succeeded (a failed one leads to an IDENTIFY)
	Heartbeats int // heartbeats received on identified connections
	// HeartbeatSeq is the sequence number the last of them carried (0
	// for null).
	HeartbeatSeq int64
	HeldResumes  int // RESUMEs waiting at HoldResumes now
	Rejections   int // connections closed with 4004
	Intents      int // the intents of the last IDENTIFY, accepted or not
}

// Message is one message as the fake stores it.
type Message struct {
	ID        string
	ChannelID string // where it is: a thread's ID for a message in a thread, as Discord reports it
	ParentID  string // the thread's parent channel when ChannelID is a thread
	AuthorID  string
	Author    string // username
	Bot       bool   // a bot's: posted through REST with a bot token, or InjectBotMessage
	Content   string
	// Rows are the message's action rows of buttons; nil when it has none.
	// An edit replaces them whole, never in place.
	Rows [][]Button
	// PostedRows are the buttons it was posted with, whatever edits did since.
	PostedRows [][]Button
	Time       time.Time
	// Nonce is the nonce the message was posted with; Discord echoes it in
	// the create answer and MESSAGE_CREATE, never in fetched messages.
	Nonce string
	// AllowedMentions is the allowed_mentions object of the post (or of the
	// last edit that carried one), as sent; nil when none was.
	AllowedMentions json.RawMessage
	Flags           int       // message flags as posted (4 is SUPPRESS_EMBEDS)
	Edits           []string  // earlier contents, oldest first; one per edit
	EditedAt        time.Time // the last edit's time; zero when never edited
	// Attachments are the files posted with it, in files[n] order.
	Attachments []Attachment
	// Reactions are the reactions added, in order; one per emoji and user.
	Reactions []Reaction
	// ReactRequests counts the requests to add a reaction to it, repeats
	// included: the service keeps one reaction however often it is asked.
	ReactRequests int

	injected bool   // stored by InjectMessage or InjectBotMessage: EditInjected may edit it
	token    string // the bot token that posted it: its app gets the clicks on its buttons
}

// Reaction is one user's reaction to a message.
type Reaction struct {
	Emoji  string // the unicode emoji, like "👀"
	UserID string
}

// Thread is one thread created through the API.
type Thread struct {
	ID        string
	ParentID  string
	Name      string
	Type      int    // 11 public, 12 private
	StarterID string // the message it was started from, if any
	OwnerID   string
	Archived  bool
	Locked    bool
	// AutoArchive is the auto_archive_duration in minutes asked for (1440
	// when none was).
	AutoArchive int
}

// Snapshot is a copy of the fake's observable state.
type Snapshot struct {
	Tokens   map[string]TokenStats // by bot token (without "Bot ")
	Messages []Message             // in the order they were created
	Threads  []Thread              // likewise
	// Interactions are the clicks (Click), oldest first, with the
	// answers each got.
	Interactions []Interaction
	// Downloads counts the requests to the fake's CDN (attachment URLs);
	// TokensToCDN those that carried an Authorization header.
	Downloads, TokensToCDN int
	// Observed has the 429s answered (injected or from route limits), the
	// message POSTs received (Posts) and those held now (HoldPosts), and
	// the nonces stored (Relayed), those stored twice (Duplicates).
	fakeserver.Observed
}

// In returns the messages of one channel or thread, oldest first.
func (sn Snapshot) In(channelID string) []Message {
	return slices.DeleteFunc(slices.Clone(sn.Messages), func(m Message) bool { return m.ChannelID != channelID })
}

// Thread returns the thread with this ID.
func (sn Snapshot) Thread(id string) (Thread, bool) {
	if i := slices.IndexFunc(sn.Threads, func(t Thread) bool { return t.ID == id }); i >= 0 {
		return sn.Threads[i], true
	}
	return Thread{}, false
}

func (s *Server) snapshotLocked() Snapshot {
	s.sweepLocked(nil)
	snap := Snapshot{
		Tokens:       make(map[string]TokenStats, len(s.stats)),
		Messages:     slices.Clone(s.messages),
		Threads:      slices.Clone(s.threads),
		Interactions: slices.Clone(s.clicks),
		Observed:     s.core.ObservedLocked(),
		Downloads:    s.downloads,
		TokensToCDN:  s.tokensToCDN,
	}
	for i := range snap.Messages {
		snap.Messages[i].Edits = slices.Clone(snap.Messages[i].Edits)
		snap.Messages[i].Reactions = slices.Clone(snap.Messages[i].Reactions)
		snap.Messages[i].Attachments = slices.Clone(snap.Messages[i].Attachments)
	}
	for i := range snap.Interactions {
		snap.Interactions[i].Answers = slices.Clone(snap.Interactions[i].Answers)
	}
	for tok, st := range maps.All(s.stats) {
		snap.Tokens[tok] = *st
	}
	return snap
}

func (s *Server) notifyLocked() { s.core.NotifyLocked() }

// Request is one request the fake answered: method, path, status, arrival.
type Request = fakeserver.Request
