package fakeslack

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// envelope is an Envelope plus what delivering it needs.
type envelope struct {
	Envelope
	payload json.RawMessage // the payload, the same on every delivery
	conn    *conn           // the socket it is in flight on, until acked or gone
	timer   *time.Timer     // the ack timeout of the delivery in flight, if armed
}

// InjectMessage stores a message from a user, as if typed in Slack, and
// sends a message event to every app. threadTS, when set, makes it a reply.
func (s *Server) InjectMessage(channel, user, text, threadTS string) (Message, error) {
	return s.inject(Message{Channel: channel, ThreadTS: threadTS, User: user, Text: text})
}

// inject stores m as its author typed it in Slack, filed under the thread
// m.ThreadTS names.
func (s *Server) inject(m Message) (Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.channelLocked(m.Channel) {
		return Message{}, fmt.Errorf("fakeslack: unknown channel %q", m.Channel)
	}
	parent, ok := s.threadLocked(m.Channel, m.ThreadTS)
	if !ok {
		return Message{}, fmt.Errorf("fakeslack: no message %q in %q to reply to", m.ThreadTS, m.Channel)
	}
	m.ThreadTS = parent
	m = s.addMessageLocked(m)
	s.logf("message %s injected in %s", m.TS, m.Channel)
	return m, nil
}

func (s *Server) channelLocked(id string) bool {
	return id != "" && !s.unknown[id] && (s.channels == nil || s.channels[id])
}

// threadLocked resolves a thread_ts to the thread's parent ts, as Slack files
// a reply to a reply under the parent. An empty threadTS is no thread.
func (s *Server) threadLocked(channel, threadTS string) (string, bool) {
	if threadTS == "" {
		return "", true
	}
	if m := s.messageLocked(channel, threadTS); m != nil {
		if m.ThreadTS != "" {
			return m.ThreadTS, true
		}
		return m.TS, true
	}
	return "", false
}

// messageLocked finds a stored message by channel and ts, nil if none.
func (s *Server) messageLocked(channel, ts string) *Message {
	for i := range s.messages {
		if m := &s.messages[i]; m.Channel == channel && m.TS == ts {
			return m
		}
	}
	return nil
}

// addMessageLocked stamps, stores and announces a message.
func (s *Server) addMessageLocked(m Message) Message {
	m.TS = s.nextTSLocked()
	s.messages = append(s.messages, m)
	s.core.StoredLocked(m.Metadata.key())
	s.fanOutLocked(m.Channel, m.TS, m.SubType, s.messageEventLocked(m))
	s.notifyLocked()
	return m
}

// fanOutLocked creates one envelope per app that may receive events.
func (s *Server) fanOutLocked(channel, messageTS, subType string, event map[string]any) {
	tokens := make([]string, 0, len(s.apps))
	for tok := range s.apps {
		if !s.faults.rejected[tok] {
			tokens = append(tokens, tok)
		}
	}
	slices.Sort(tokens)
	payload := s.eventPayload(event)
	for _, tok := range tokens {
		s.sendEnvelopeLocked(&envelope{Envelope: Envelope{
			ID: newEnvelopeID(), Type: "events_api", AppToken: tok, Channel: channel, MessageTS: messageTS, SubType: subType,
		}, payload: payload})
	}
}

// sendEnvelopeLocked files a new envelope and delivers it.
func (s *Server) sendEnvelopeLocked(e *envelope) {
	s.envelopes = append(s.envelopes, e)
	s.byID[e.ID] = e
	s.deliverLocked(e)
}

// messageEventLocked is the message event Slack sends for a new message:
// a human's carries client_msg_id, an app's bot_id and app_id, a legacy
// bot's (subtype bot_message) bot_id and no user; a reply carries
// thread_ts and parent_user_id.
func (s *Server) messageEventLocked(m Message) map[string]any {
	event := s.messageObjectLocked(m)
	event["channel"] = m.Channel
	event["event_ts"] = m.TS
	event["channel_type"] = channelType(m.Channel)
	if m.BotID == "" {
		event["client_msg_id"] = newEnvelopeID()
	}
	if len(m.Files) > 0 && m.SubType == "" {
		// An event names a message with files file_share; history does
		// not (it shows them by files and upload).
		event["subtype"] = "file_share"
	}
	return event
}

// messageObjectLocked is the part of a message that events and the Web API
// render alike.
func (s *Server) messageObjectLocked(m Message) map[string]any {
	out := map[string]any{"type": "message", "text": m.Text, "ts": m.TS, "team": s.opts.TeamID}
	if m.User != "" {
		out["user"] = m.User
	}
	if m.SubType != "" {
		out["subtype"] = m.SubType
	}
	if m.BotID != "" {
		out["bot_id"] = m.BotID
		if m.SubType == "" {
			out["app_id"] = s.opts.AppID // posted by the app's own bot
		}
	}
	if m.Blocks != nil {
		out["blocks"] = m.Blocks
	}
	if len(m.Files) > 0 {
		out["files"], out["upload"], out["display_as_bot"] = s.filesJSONLocked(m.Files), true, false
	}
	if m.ThreadTS != "" {
		out["thread_ts"] = m.ThreadTS
		if p := s.messageLocked(m.Channel, m.ThreadTS); p != nil && p.User != "" {
			out["parent_user_id"] = p.User
		}
	}
	return out
}

// eventPayload is an events_api payload around an event; its shape is what
// slackevents.ParseEvent reads.
func (s *Server) eventPayload(event map[string]any) json.RawMessage {
	user, _ := event["user"].(string)
	_, isBot := event["bot_id"]
	return fakeserver.MustMarshal(map[string]any{
		"token":                 "fakeslack-verification-token",
		"team_id":               s.opts.TeamID,
		"api_app_id":            s.opts.AppID,
		"event":                 event,
		"type":                  "event_callback",
		"event_id":              "Ev" + strings.ToUpper(fakeserver.RandomHex(5)),
		"event_time":            time.Now().Unix(),
		"event_context":         "fakeslack-" + fakeserver.RandomHex(4),
		"is_ext_shared_channel": false,
		"authorizations": []map[string]any{{
			"team_id": s.opts.TeamID, "user_id": user, "is_bot": isBot,
		}},
	})
}

func channelType(id string) string {
	switch {
	case strings.HasPrefix(id, "D"):
		return "im"
	case strings.HasPrefix(id, "G"):
		return "group"
	}
	return "channel"
}

// deliverLocked sends an envelope (an event or an interaction alike) to one greeted socket of its app, taking
// turns between sockets, and arms its ack timeout; with none open it waits
// for the next hello.
func (s *Server) deliverLocked(e *envelope) {
	var open []*conn
	for c := range s.conns {
		if c.appToken == e.AppToken && c.hello && !c.closing {
			open = append(open, c)
		}
	}
	if len(open) == 0 {
		e.conn = nil
		return
	}
	slices.SortFunc(open, func(a, b *conn) int { return a.id - b.id })
	s.roundRobin++
	c := open[s.roundRobin%len(open)]
	e.conn = c
	e.Deliveries++
	e.DeliveredAt = append(e.DeliveredAt, time.Now())
	retry := ""
	if e.Deliveries > 1 {
		retry = "timeout"
	}
	if c.deaf {
		// Lost on the way, as far as either end can tell: unacked, it
		// is retried, to the same deaf socket while it is the only one.
		s.armAckTimeoutLocked(e)
		return
	}
	s.sendLocked(c, map[string]any{
		"envelope_id":              e.ID,
		"payload":                  e.payload,
		"type":                     e.Type,
		"accepts_response_payload": false,
		"retry_attempt":            e.Deliveries - 1,
		"retry_reason":             retry,
	})
	if e.conn == c { // sendLocked may have cut a slow socket, which moved e on
		s.armAckTimeoutLocked(e)
	}
}
