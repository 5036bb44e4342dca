package fakediscord

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// DefaultInteractionDeadline is Discord's: an interaction not answered
// within 3 s of the click is gone (10062 Unknown interaction), and the
// user sees "This interaction failed".
const DefaultInteractionDeadline = 3 * time.Second

// interactionMessageComponent is the interaction type of a button click.
const interactionMessageComponent = 3

// Interaction is one click on a button, as the fake dispatched it, and
// every callback the bot sent for it.
type Interaction struct {
	ID            string // a snowflake: its time is the click's
	Token         string // the interaction token of the callback URL
	ApplicationID string // the app whose message has the button: the one that gets the click
	ChannelID     string // where the message is (a thread's ID in a thread)
	MessageID     string
	UserID        string // who clicked
	CustomID      string // the button's custom_id
	At            time.Time
	// Answers are the callbacks received for it, in order, those refused
	// (a second one, a late one, an invalid one) included.
	Answers []Answer

	token string // the bot token of the app
}

// Answer is one interaction callback as the fake received it.
type Answer struct {
	Type    int    // 4 CHANNEL_MESSAGE_WITH_SOURCE, 6 DEFERRED_UPDATE_MESSAGE, 7 UPDATE_MESSAGE, or what was sent
	Content string // data.content (4, 7)
	Flags   int    // data.flags: 64 is EPHEMERAL
	Status  int    // the fake's answer: 204 when it acknowledged the interaction
	Code    int    // Discord's error code when refused: 10062, 40060, 50035, 50006
	At      time.Time
}

// Acknowledged is the answer that acknowledged the interaction, if one did.
func (i Interaction) Acknowledged() (Answer, bool) {
	if k := slices.IndexFunc(i.Answers, func(a Answer) bool { return a.Status == 204 }); k >= 0 {
		return i.Answers[k], true
	}
	return Answer{}, false
}

// Interaction finds a click by its interaction ID.
func (sn Snapshot) Interaction(id string) (Interaction, bool) {
	if k := slices.IndexFunc(sn.Interactions, func(i Interaction) bool { return i.ID == id }); k >= 0 {
		return sn.Interactions[k], true
	}
	return Interaction{}, false
}

// Click is userID clicking the button with customID on a message, as in
// Discord's client: the fake makes an interaction (type 3
// MESSAGE_COMPONENT) and dispatches INTERACTION_CREATE, which needs no
// intent, to every session of the bot that posted the message (a session
// that is away gets it on RESUME, within its backlog). The bot has
// Options.InteractionDeadline to answer it at POST
// /interactions/{id}/{token}/callback. The user is a guild member
// (member.user, with global_name when SetGlobalName gave one). A button
// on the message, not disabled, can be clicked, and so can one an edit
// took away since it was posted: a client that has not seen the edit yet
// still shows it.
func (s *Server) Click(channelID, messageID, userID, customID string) (Interaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.channelLocked(channelID); !ok {
		return Interaction{}, fmt.Errorf("fakediscord: click in unknown channel %q", channelID)
	}
	m := s.messageLocked(channelID, messageID)
	if m == nil {
		return Interaction{}, fmt.Errorf("fakediscord: click on %s: no such message in %s", messageID, channelID)
	}
	if !m.clickable(customID) {
		return Interaction{}, fmt.Errorf("fakediscord: click on %s: no button %q to click (it has %q)", messageID, customID, m.Buttons())
	}
	i := Interaction{ID: s.nextIDLocked(), Token: "interaction." + fakeserver.RandomHex(32), ApplicationID: s.applicationIDLocked(m.token),
		ChannelID: channelID, MessageID: messageID, UserID: userID, CustomID: customID, At: time.Now().UTC(), token: m.token}
	s.clicks = append(s.clicks, i)
	for _, sess := range s.sessions {
		if sess.token == m.token {
			s.dispatchLocked(sess, "INTERACTION_CREATE", s.interactionLocked(i, *m, sess))
		}
	}
	s.logf("interaction %s: %s clicked %q on message %s", i.ID, userID, customID, messageID)
	s.notifyLocked()
	return i, nil
}

// interactionLocked is INTERACTION_CREATE's body for one session.
func (s *Server) interactionLocked(i Interaction, m Message, sess *session) map[string]any {
	channel := s.textChannel(i.ChannelID)
	if t, _ := s.channelLocked(i.ChannelID); t != nil {
		channel = s.threadChannel(*t)
	}
	perms := strconv.FormatInt((BotPermissions|everyonePermissions)&^s.faults.denied[i.token], 10)
	return map[string]any{
		"id":             i.ID,
		"application_id": i.ApplicationID,
		"type":           interactionMessageComponent,
		"token":          i.Token,
		"version":        1,
		"guild_id":       s.opts.GuildID,
		"channel_id":     i.ChannelID,
		"channel":        channel,
		"message":        s.apiMessageLocked(m, sessionViewer(sess)),
		"member": map[string]any{
			"user": s.userLocked(i.UserID), "nick": nil, "avatar": nil, "roles": []string{},
			"joined_at": joinedAt.Format(time.RFC3339Nano), "premium_since": nil,
			"deaf": false, "mute": false, "flags": 0, "pending": false,
			"permissions": strconv.FormatInt(everyonePermissions, 10), "communication_disabled_until": nil,
		},
		"data":                           map[string]any{"custom_id": i.CustomID, "component_type": componentButton},
		"app_permissions":                perms,
		"locale":                         "en-US",
		"guild_locale":                   "en-US",
		"entitlements":                   []any{},
		"authorizing_integration_owners": map[string]string{"0": s.opts.GuildID},
		"context":                        0,
	}
}
