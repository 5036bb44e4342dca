package fakeslack

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// AppStats counts one app token's Socket Mode connections.
type AppStats struct {
	fakeserver.Sessions     // sockets open now, and the most ever open at once
	Connections         int // sockets opened in all
}

// Message is one message as the fake stores it.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string // the parent's ts for a reply, "" for a top-level message
	User     string // "" for a bot_message
	BotID    string // set for bots' messages: chat.postMessage's and InjectBotMessage's
	// SubType is "bot_message" for InjectBotMessage's, "" otherwise.
	SubType string
	// Text is exactly as the client sent it (Slack-escaped, for a careful
	// client), the latest edit's when edited.
	Text string
	// Metadata is the message metadata chat.postMessage carried, nil if none.
	Metadata *Metadata
	// Blocks are the message's Block Kit blocks as stored (block ids and
	// action ids filled in), nil if none; Buttons are the buttons among
	// them, in order. chat.update replaces both when it brings blocks;
	// PostedButtons stay those it was posted with.
	Blocks        json.RawMessage
	Buttons       []Button
	PostedButtons []Button
	// UnfurlLinks and UnfurlMedia are the raw unfurl_links and unfurl_media
	// parameters, "" when the client did not send them.
	UnfurlLinks, UnfurlMedia string
	// Parse and LinkNames are the raw parse and link_names parameters of
	// the call that set Text (the post, or the latest chat.update), ""
	// when the client did not send them. Slack's defaults differ between
	// the two methods, and either could turn a name in the text into a
	// mention, so a careful client sends parse=none and link_names=false.
	Parse, LinkNames string
	// Edits are the texts the message had before each chat.update, oldest
	// first; EditedTS is when the latest edit was made.
	Edits    []string
	EditedTS string
	// Reactions are the reactions added to the message, in the order added.
	Reactions []Reaction
	// ReactRequests counts the requests to add a reaction to it, repeats
	// included: the service keeps one reaction however often it is asked.
	ReactRequests int
	// Files are the ids of the files the message shares (Snapshot.Files).
	Files []string
}

// Reaction is one reactions.add: an emoji name and who added it.
type Reaction struct {
	Name string
	User string // the bot's user ID, BotUserID(token)
}

// Metadata is a message's metadata as Slack stores it.
type Metadata struct {
	EventType    string
	EventPayload map[string]any
}

// Envelope is one event for one app, with its deliveries: an events_api
// message event, or an interactive block_actions payload (a click).
type Envelope struct {
	ID        string // envelope_id
	Type      string // "events_api" or "interactive"
	AppToken  string
	Channel   string
	MessageTS string // the message the event is about, or the button is on
	// SubType is the message event's subtype: "" for a new message,
	// "bot_message", or "message_changed" for an edit.
	SubType string
	// Deliveries is how many times it was sent: more than one after an
	// ack timeout or a socket closed without its ack. DeliveredAt has
	// each delivery's time.
	Deliveries  int
	DeliveredAt []time.Time
	// Acked is set by the first ack, at AckedAt, however late.
	Acked   bool
	AckedAt time.Time
	// GaveUp is set once the last retry went unacked (or its socket
	// closed): it is not sent again. A late ack may still set Acked.
	GaveUp bool
}

func (e *envelope) copy() Envelope {
	c := e.Envelope
	c.DeliveredAt = slices.Clone(c.DeliveredAt)
	return c
}

// Snapshot is a copy of the fake's observable state.
type Snapshot struct {
	Apps      map[string]AppStats // by app token
	Messages  []Message           // in the order they were created
	Envelopes []Envelope          // likewise
	// Ephemerals are the messages only one user saw (chat.postEphemeral,
	// or an answer to an interaction's response_url), in order.
	Ephemerals []Ephemeral
	// Files are the bots' uploads (from their upload tickets on) and the
	// files users attached, in the order made.
	Files []File
	// Observed has the 429s answered (injected and by method limits), the
	// chat.postMessage and files.completeUploadExternal calls received (Posts: a client that re-sent a post
	// shows there) and those held now (HoldNextPost), and the metadata keys
	// stored (Relayed), those stored twice (Duplicates).
	fakeserver.Observed
}

// Channel returns a channel's top-level messages, oldest first.
func (sn Snapshot) Channel(channel string) []Message { return sn.Thread(channel, "") }

// Thread returns the replies under a parent message, oldest first.
func (sn Snapshot) Thread(channel, parentTS string) []Message {
	return slices.DeleteFunc(slices.Clone(sn.Messages), func(m Message) bool { return m.Channel != channel || m.ThreadTS != parentTS })
}

func (s *Server) snapshotLocked() Snapshot {
	s.sweepLocked("")
	snap := Snapshot{
		Apps:       make(map[string]AppStats, len(s.apps)),
		Messages:   make([]Message, len(s.messages)),
		Envelopes:  make([]Envelope, len(s.envelopes)),
		Ephemerals: slices.Clone(s.ephemerals),
		Files:      filesClone(s.files),
		Observed:   s.core.ObservedLocked(),
	}
	for i, m := range s.messages {
		m.Edits = slices.Clone(m.Edits)
		m.Reactions = slices.Clone(m.Reactions)
		m.Blocks = slices.Clone(m.Blocks)
		m.Buttons = slices.Clone(m.Buttons)
		m.PostedButtons = slices.Clone(m.PostedButtons)
		m.Files = slices.Clone(m.Files)
		if m.Metadata != nil {
			md := *m.Metadata
			md.EventPayload = maps.Clone(md.EventPayload)
			m.Metadata = &md
		}
		snap.Messages[i] = m
	}
	for tok, st := range s.apps {
		snap.Apps[tok] = *st
	}
	for i, e := range s.envelopes {
		snap.Envelopes[i] = e.copy()
	}
	return snap
}

func (s *Server) notifyLocked() { s.core.NotifyLocked() }

// Request is one request the fake answered: method, path, status, arrival.
type Request = fakeserver.Request
