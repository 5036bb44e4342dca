package fakeslack_test

import (
	"slices"
	"testing"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

// Events of other authors and of edits, as socketmode hands them over.
func TestBotMessageAndEditEvents(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{AppTokens: []string{appTok}, Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	c := run(t, api)
	c.next(t, socketmode.EventTypeHello, nil)
	event := func(subType, ts string) *slackevents.MessageEvent {
		t.Helper()
		e := c.next(t, socketmode.EventTypeEventsAPI, func(e socketmode.Event) bool {
			ev, ok := e.Data.(slackevents.EventsAPIEvent)
			if !ok {
				return false
			}
			m, ok := ev.InnerEvent.Data.(*slackevents.MessageEvent)
			return ok && m.SubType == subType && m.Message != nil && m.Message.Timestamp == ts
		})
		return e.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent)
	}

	root := mustPost(t, api, "root", "")
	event("", root)

	const other = "B0OTHER01"
	bot, err := f.InjectBotMessage(channel, other, "from another app", root)
	if err != nil {
		t.Fatal(err)
	}
	if got := event("bot_message", bot.TS); got.BotID != other || got.User != "" || got.ClientMsgID != "" ||
		got.Text != "from another app" || got.ThreadTimeStamp != root || got.Message.ParentUserId != fakeslack.BotUserID(botTok) {
		t.Fatalf("bot_message event %+v", got)
	}

	reply, err := f.InjectMessage(channel, user, "human reply", bot.TS) // a reply to a reply lands under the root
	if err != nil {
		t.Fatal(err)
	}
	if got := event("", reply.TS); got.User != user || got.ClientMsgID == "" || got.BotID != "" ||
		got.ThreadTimeStamp != root || got.Message.ParentUserId != fakeslack.BotUserID(botTok) {
		t.Fatalf("reply event %+v", got)
	}

	if err := f.EditInjected(channel, reply.TS, "human reply, edited"); err != nil {
		t.Fatal(err)
	}
	edited := f.Snapshot().Thread(channel, root)[1]
	got := event("message_changed", reply.TS)
	if got.TimeStamp != edited.EditedTS || got.TimeStamp <= reply.TS || got.Channel != channel || got.ClientMsgID != "" {
		t.Fatalf("message_changed event %+v", got)
	}
	if m := got.Message; m.Text != "human reply, edited" || m.User != user || m.ThreadTimestamp != root ||
		m.Edited == nil || m.Edited.User != user || m.Edited.Timestamp != edited.EditedTS {
		t.Fatalf("message_changed message %+v", m)
	}
	if p := got.PreviousMessage; p == nil || p.Text != "human reply" || p.Timestamp != reply.TS || p.Edited != nil {
		t.Fatalf("message_changed previous_message %+v", p)
	}
	if edited.Text != "human reply, edited" || !slices.Equal(edited.Edits, []string{"human reply"}) {
		t.Fatalf("stored after the edit %+v", edited)
	}
	if err := f.EditInjected(channel, bot.TS, "x"); err == nil {
		t.Fatal("EditInjected edited a bot's message")
	}
	if err := f.EditInjected(channel, "1.000001", "x"); err == nil {
		t.Fatal("EditInjected edited a message that does not exist")
	}

	// The app's own edits come back as message_changed too.
	if _, _, _, err := api.UpdateMessage(channel, root, slack.MsgOptionText("root, edited", false)); err != nil {
		t.Fatal(err)
	}
	if got := event("message_changed", root); got.Message.Text != "root, edited" || got.Message.BotID != fakeslack.BotID(botTok) ||
		got.PreviousMessage.Text != "root" {
		t.Fatalf("message_changed of chat.update %+v", got.Message)
	}

	snap := f.Snapshot()
	var subTypes []string
	for _, e := range snap.Envelopes {
		subTypes = append(subTypes, e.SubType)
	}
	if !slices.Equal(subTypes, []string{"", "bot_message", "", "message_changed", "message_changed"}) {
		t.Fatalf("envelope subtypes %q", subTypes)
	}
	msgs, _, _, err := api.GetConversationReplies(&slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: root})
	if err != nil || len(msgs) != 3 {
		t.Fatalf("replies: %+v, %v", msgs, err)
	}
	if b := msgs[1]; b.SubType != "bot_message" || b.BotID != other || b.User != "" {
		t.Fatalf("bot message in replies %+v", b)
	}
	if h := msgs[2]; h.Text != "human reply, edited" || h.Edited == nil || h.Edited.Timestamp != edited.EditedTS || h.ParentUserId != fakeslack.BotUserID(botTok) {
		t.Fatalf("edited reply in replies %+v", h)
	}
}
