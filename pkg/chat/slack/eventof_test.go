package slack

import (
	"testing"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"gjc.dev/reconciler/pkg/inbound"
)

// EventOf says where a Socket Mode message was written, by whom and what
// sort it is; the inbound side's decision rests on these alone.
func TestEventOf(t *testing.T) {
	const ch, self, root = "C1", "UBOT", "1700000000.000100"
	for _, c := range []struct {
		name  string
		e     slackevents.MessageEvent
		place string
		kind  inbound.Kind
		bot   bool
		selfP bool
		text  string
	}{
		{"a person's reply", slackevents.MessageEvent{Channel: ch, TimeStamp: "1700000001.000200", ThreadTimeStamp: root, User: "U1", Text: "a &lt;b&gt; &amp; c"},
			root, inbound.Plain, false, false, "a <b> & c"},
		{"a root message is in no thread", slackevents.MessageEvent{Channel: ch, TimeStamp: root, ThreadTimeStamp: root, User: "U1"}, "", inbound.Plain, false, false, ""},
		{"another channel", slackevents.MessageEvent{Channel: "C2", TimeStamp: "1700000001.000200", ThreadTimeStamp: root, User: "U1"}, "", inbound.Plain, false, false, ""},
		{"our own post", slackevents.MessageEvent{Channel: ch, TimeStamp: "1700000001.000200", ThreadTimeStamp: root, User: self, BotID: "B1"}, root, inbound.Plain, true, true, ""},
		{"another app's post", slackevents.MessageEvent{Channel: ch, TimeStamp: "1700000001.000200", ThreadTimeStamp: root, User: "U2", BotID: "B2"}, root, inbound.Plain, true, false, ""},
		{"a legacy bot_message", slackevents.MessageEvent{Channel: ch, TimeStamp: "1700000001.000200", ThreadTimeStamp: root, SubType: "bot_message", BotID: "B3"}, root, inbound.Plain, true, false, ""},
		{"a person's edit", slackevents.MessageEvent{Channel: ch, SubType: "message_changed", TimeStamp: "1700000009.000000",
			Message: &slackapi.Msg{Timestamp: "1700000001.000200", ThreadTimestamp: root, User: "U1"}}, root, inbound.Edit, false, false, ""},
		{"our own edit", slackevents.MessageEvent{Channel: ch, SubType: "message_changed", TimeStamp: "1700000009.000000",
			Message: &slackapi.Msg{Timestamp: "1700000001.000200", ThreadTimestamp: root, User: self, BotID: "B1"}}, root, inbound.Edit, true, true, ""},
		{"another app's edit", slackevents.MessageEvent{Channel: ch, SubType: "message_changed", TimeStamp: "1700000009.000000",
			Message: &slackapi.Msg{Timestamp: "1700000001.000200", ThreadTimestamp: root, User: "U2", BotID: "B2"}}, root, inbound.Edit, true, false, ""},
		{"a join", slackevents.MessageEvent{Channel: ch, TimeStamp: "1700000001.000200", ThreadTimeStamp: root, User: "U1", SubType: "channel_join"}, root, inbound.Other, false, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := EventOf(&c.e, ch, self)
			if ev.Place != c.place || ev.Kind != c.kind || ev.Bot != c.bot || ev.Self != c.selfP || ev.Text != c.text {
				t.Fatalf("got %+v", ev)
			}
		})
	}
}
