package telegram

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/relay"
)

var askChoices = []relay.Choice{{Data: "01JASK:0", Label: "Approve"}, {Data: "01JASK:1", Label: "Deny"}}

// An ask's last part is posted with one row of buttons, the first the
// main one; its mentions are text_mention entities of the ids pinged,
// the only pings the bot makes; an edit removes the buttons.
func TestAskPostsButtonsAndPingsOnlyWhomItNames(t *testing.T) {
	f := startFake(t, true)
	p := newPoster(t, f)
	id, err := p.Post(ctxFor(t), relay.Part{Key: "a/0", Text: "Deploy? cc @alice", Choices: askChoices, Ping: []string{"4200", "4201"}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := f.Snapshot().Message(faketelegram.DefaultChatID, id64(t, id))
	want := faketelegram.Keyboard{{{Text: "Approve", Style: "primary", Data: "01JASK:0"}, {Text: "Deny", Data: "01JASK:1"}}}
	if !reflect.DeepEqual(m.Keyboard, want) {
		t.Errorf("keyboard %+v", m.Keyboard)
	}
	if m.Text != "Deploy? cc ＠alice\n\nAsking: 4200, 4201" {
		t.Errorf("text %q", m.Text)
	}
	var pinged []int64
	for _, e := range m.Entities {
		if e.Pings() {
			if e.Type != "text_mention" || e.User == nil {
				t.Fatalf("a ping that is no text_mention: %+v", e)
			}
			pinged = append(pinged, e.User.ID)
			if got := string([]rune(m.Text)[e.Offset : e.Offset+e.Length]); got != strconvI(e.User.ID) {
				t.Errorf("the mention of %d covers %q", e.User.ID, got)
			}
		}
	}
	if !reflect.DeepEqual(pinged, []int64{4200, 4201}) {
		t.Errorf("pinged %v", pinged)
	}
	if err := p.Edit(ctxFor(t), relay.EditRequest{RemoteID: id, Text: "Deploy?\n\nDecided: Approve, by alice"}); err != nil {
		t.Fatal(err)
	}
	if m, _ := f.Snapshot().Message(faketelegram.DefaultChatID, id64(t, id)); m.Keyboard != nil || m.Pings() {
		t.Errorf("after the edit: keyboard %+v, entities %+v", m.Keyboard, m.Entities)
	}
}

// An ask part whose answer was lost is found by the probe, which carries
// the same keyboard and mentions, so the message is "not modified", and
// given them back after the mark that proves where it lies; without them
// the probe would have taken them away.
func TestLookupFindsAnAskWithItsButtons(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	before := post(t, p, "m/0", "", "before")
	f.AcceptThenFail(1, faketelegram.FailCut)
	part := relay.Part{Key: "a/0", Thread: before, Text: "Deploy?", Choices: askChoices, Ping: []string{"4200"}}
	if _, err := p.Post(ctxFor(t), part); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}
	id, found, err := newPoster(t, f).Lookup(ctxFor(t), part, before)
	if err != nil || !found {
		t.Fatalf("Lookup = %q %v %v, want found", id, found, err)
	}
	m, _ := f.Snapshot().Message(faketelegram.DefaultChatID, id64(t, id))
	if m.Text != "Deploy?\n\nAsking: 4200" || len(m.Keyboard.Data()) != 2 || !m.Pings() {
		t.Errorf("found %+v", m)
	}
}

// The mentions as a pure function: only the ids named, offsets in UTF-16
// code units, and a part near the limit stays within it.
func TestWithMentions(t *testing.T) {
	text, es := withMentions("🚀 go?", []string{"7", "x", "42"})
	if text != "🚀 go?\n\nAsking: 7, 42" || len(es) != 2 {
		t.Fatalf("%q %+v", text, es)
	}
	if es[0] != (models.MessageEntity{Type: models.MessageEntityTypeTextMention, Offset: 16, Length: 1, User: es[0].User}) || es[0].User.ID != 7 ||
		es[1].Offset != 19 || es[1].Length != 2 || es[1].User.ID != 42 {
		t.Errorf("entities %+v %+v", es[0], es[1])
	}
	if text, es := withMentions("no one", nil); text != "no one" || es != nil {
		t.Errorf("no ping: %q %+v", text, es)
	}
	near := "🚀" + strings.Repeat("a", PartLimit-len(pingLead)-4)
	text, es = withMentions(near, []string{"7", "42"})
	if text != near+pingLead+"7" || len(es) != 1 {
		t.Errorf("near the limit: %d chars, %+v", len([]rune(text)), es)
	}
	if c := contentOf(relay.Part{Text: "plain @bob"}); c.entities != nil || c.keyboard != nil || c.text != "plain ＠bob" {
		t.Errorf("a plain part: %+v", c)
	}
}
