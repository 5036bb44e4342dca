package fakeslack

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// Click is a person's click on a button of a message, as Server.Click
// sends it.
type Click struct {
	// App is the app token whose Socket Mode connection receives the
	// interaction (Slack sends it to the app whose message it is); "" for
	// the only app the fake knows.
	App         string
	Channel, TS string // the message the button is on
	ActionID    string // the button's action_id
	User        string // the clicker's user id
	Name        string // the clicker's user name; "" for the user id
	// Stale clicks a button the message was posted with although an edit
	// has removed it since, as a person can whose Slack has not yet shown
	// the edit (or who clicked just before it).
	Stale bool
}

// Interaction is what a Click sent: its envelope (Snapshot.Envelopes
// shows it acked or not) and the ids its block_actions payload carried.
type Interaction struct {
	EnvelopeID, TriggerID, ActionTS, ResponseURL string
}

// responseURLUses and responseURLLife are Slack's bounds on an
// interaction's response_url: 5 answers within 30 minutes.
const (
	responseURLUses = 5
	responseURLLife = 30 * time.Minute
)

// Click sends an interactive envelope with a block_actions payload to one
// open Socket Mode connection of the app, as Slack does when a person
// clicks a button: the clicker (user: id, username, name), the channel,
// the container (message_ts, and thread_ts for a message in a thread),
// the message as it is now, the action (action_id, block_id, value, the
// button's text, action_ts), a trigger_id and a response_url. It is
// delivered, acked and retried like an event (Options.AckTimeout): Slack
// documents Socket Mode's retries for events, and a client that acks a
// click only once it has it for good must get it again when it did not.
// It fails when the message has no such button: no one can click a
// button that is not there (or no longer, unless Stale).
func (s *Server) Click(c Click) (Interaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	app, err := s.clickAppLocked(c.App)
	if err != nil {
		return Interaction{}, err
	}
	m := s.messageLocked(c.Channel, c.TS)
	if m == nil {
		return Interaction{}, fmt.Errorf("fakeslack: no message %q in %q", c.TS, c.Channel)
	}
	buttons := m.Buttons
	if c.Stale {
		buttons = m.PostedButtons
	}
	i := slices.IndexFunc(buttons, func(b Button) bool { return b.ActionID == c.ActionID })
	if i < 0 {
		return Interaction{}, fmt.Errorf("fakeslack: message %s in %s has no button %q", c.TS, c.Channel, c.ActionID)
	}
	if c.User == "" {
		return Interaction{}, errors.New("fakeslack: a click needs a user")
	}
	if c.Name == "" {
		c.Name = strings.ToLower(c.User)
	}
	in := Interaction{
		EnvelopeID: newEnvelopeID(),
		TriggerID:  fmt.Sprintf("%d.%s", time.Now().UnixMicro(), fakeserver.RandomHex(8)),
		ActionTS:   s.nextTSLocked(),
	}
	path := fakeserver.RandomHex(12)
	in.ResponseURL = s.URL() + "/response/" + path
	s.responseURLs[path] = &responseURL{channel: c.Channel, user: c.User, thread: m.ThreadTS, expires: time.Now().Add(responseURLLife)}
	payload := fakeserver.MustMarshal(s.blockActionsLocked(*m, buttons[i], c, in))
	s.sendEnvelopeLocked(&envelope{Envelope: Envelope{
		ID: in.EnvelopeID, Type: "interactive", AppToken: app, Channel: c.Channel, MessageTS: c.TS,
	}, payload: payload})
	s.logf("button %s of message %s clicked by %s", c.ActionID, c.TS, c.User)
	s.notifyLocked()
	return in, nil
}

// clickAppLocked is the app token a click goes to.
func (s *Server) clickAppLocked(app string) (string, error) {
	if app != "" {
		if _, ok := s.apps[app]; !ok {
			return "", fmt.Errorf("fakeslack: no app with that token has connected or is listed")
		}
		return app, nil
	}
	if len(s.apps) != 1 {
		return "", fmt.Errorf("fakeslack: %d apps known; say which one the click goes to", len(s.apps))
	}
	for tok := range s.apps {
		app = tok
	}
	return app, nil
}

// blockActionsLocked is the block_actions payload of a click, shaped as
// Slack's interaction payload reference shows it.
func (s *Server) blockActionsLocked(m Message, b Button, c Click, in Interaction) map[string]any {
	container := map[string]any{"type": "message", "message_ts": m.TS, "channel_id": m.Channel, "is_ephemeral": false}
	if m.ThreadTS != "" {
		container["thread_ts"] = m.ThreadTS
	}
	action := map[string]any{
		"type": "button", "action_id": b.ActionID, "block_id": b.BlockID, "value": b.Value,
		"text": map[string]any{"type": "plain_text", "text": b.Text, "emoji": true}, "action_ts": in.ActionTS,
	}
	if b.Style != "" {
		action["style"] = b.Style
	}
	return map[string]any{
		"type":       "block_actions",
		"user":       map[string]any{"id": c.User, "username": c.Name, "name": c.Name, "team_id": s.opts.TeamID},
		"api_app_id": s.opts.AppID,
		"token":      "fakeslack-verification-token",
		"container":  container,
		"trigger_id": in.TriggerID,
		"team":       map[string]any{"id": s.opts.TeamID, "domain": "fakeslack"},
		"enterprise": nil, "is_enterprise_install": false,
		"channel":      map[string]any{"id": m.Channel, "name": "fake-" + strings.ToLower(m.Channel)},
		"message":      s.apiMessageLocked(m, false),
		"state":        map[string]any{"values": map[string]any{}},
		"response_url": in.ResponseURL,
		"actions":      []any{action},
	}
}
