package fakeslack_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

func button(actionID, value, label string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(actionID, value, slack.NewTextBlockObject(slack.PlainTextType, label, false, false))
}

func question(text string, buttons ...slack.BlockElement) slack.MsgOption {
	return slack.MsgOptionBlocks(
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, true), nil, nil),
		slack.NewActionBlock("", buttons...),
	)
}

// buttonsOf are the buttons of a message's actions blocks, as slack-go reads them.
func buttonsOf(m slack.Message) []*slack.ButtonBlockElement {
	var out []*slack.ButtonBlockElement
	for _, b := range m.Blocks.BlockSet {
		if a, ok := b.(*slack.ActionBlock); ok && a.Elements != nil {
			for _, el := range a.Elements.ElementSet {
				if bt, ok := el.(*slack.ButtonBlockElement); ok {
					out = append(out, bt)
				}
			}
		}
	}
	return out
}

func TestBlockKitButtonsAndClicks(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{BotTokens: []string{botTok}, AppTokens: []string{appTok}, Channels: []string{channel}, AckTimeout: 300 * time.Millisecond})
	api := newAPI(f, botTok, appTok)
	root, err := f.InjectMessage(channel, user, "a session", "")
	if err != nil {
		t.Fatal(err)
	}
	_, ts, err := api.PostMessage(channel, slack.MsgOptionText("May I? (fallback)", false), slack.MsgOptionTS(root.TS),
		question("May I?", button("ask1:0", "ask1:0", "Approve").WithStyle(slack.StylePrimary), button("ask1:1", "ask1:1", "Deny")))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("replies return the blocks as posted", func(t *testing.T) {
		msgs, _, _, err := api.GetConversationReplies(&slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: root.TS})
		if err != nil || len(msgs) != 2 {
			t.Fatalf("replies = %+v, %v", msgs, err)
		}
		got := buttonsOf(msgs[1])
		if len(got) != 2 || got[0].ActionID != "ask1:0" || got[0].Value != "ask1:0" || got[0].Text.Text != "Approve" ||
			got[0].Style != slack.StylePrimary || got[1].ActionID != "ask1:1" || got[1].Style != "" {
			t.Fatalf("buttons read back %+v", got)
		}
		if msgs[1].Text != "May I? (fallback)" {
			t.Fatalf("text %q", msgs[1].Text)
		}
	})

	c := runAcking(t, api, func(*socketmode.Request) bool { return true })
	c.next(t, socketmode.EventTypeHello, nil)

	var in fakeslack.Interaction
	t.Run("a click arrives as block_actions and is redelivered until acked", func(t *testing.T) {
		in, err = f.Click(fakeslack.Click{Channel: channel, TS: ts, ActionID: "ask1:1", User: "U0ALICE", Name: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		first := c.next(t, socketmode.EventTypeInteractive, nil)
		cb, ok := first.Data.(slack.InteractionCallback)
		if !ok {
			t.Fatalf("data %T", first.Data)
		}
		if cb.Type != slack.InteractionTypeBlockActions || cb.User.ID != "U0ALICE" || cb.User.Name != "alice" ||
			cb.Channel.ID != channel || cb.Container.MessageTs != ts || cb.Container.ThreadTs != root.TS ||
			cb.Message.Timestamp != ts || cb.Message.ThreadTimestamp != root.TS ||
			cb.TriggerID != in.TriggerID || cb.ResponseURL != in.ResponseURL {
			t.Fatalf("callback %+v", cb)
		}
		acts := cb.ActionCallback.BlockActions
		if len(acts) != 1 || acts[0].ActionID != "ask1:1" || acts[0].Value != "ask1:1" || acts[0].BlockID == "" ||
			acts[0].ActionTs != in.ActionTS || acts[0].Text.Text != "Deny" {
			t.Fatalf("actions %+v", acts)
		}
		if first.Request.EnvelopeID != in.EnvelopeID || first.Request.RetryAttempt != 0 {
			t.Fatalf("request %+v", first.Request)
		}
		again := c.next(t, socketmode.EventTypeInteractive, nil) // not acked: Slack sends it again
		if again.Request.EnvelopeID != in.EnvelopeID || again.Request.RetryAttempt != 1 {
			t.Fatalf("redelivery %+v", again.Request)
		}
		if err := c.sm.AckCtx(context.Background(), in.EnvelopeID, nil); err != nil {
			t.Fatal(err)
		}
		waitFor(t, f, "the click acked", func(sn fakeslack.Snapshot) bool {
			for _, e := range sn.Envelopes {
				if e.ID == in.EnvelopeID {
					return e.Acked && e.Type == "interactive" && e.MessageTS == ts
				}
			}
			return false
		})
	})

	t.Run("answers only the clicker sees", func(t *testing.T) {
		if _, err := api.PostEphemeral(channel, "U0ALICE", slack.MsgOptionText("Already decided: Deny, by alice", false), slack.MsgOptionTS(root.TS)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := api.PostMessage(channel, slack.MsgOptionResponseURL(in.ResponseURL, slack.ResponseTypeEphemeral),
			slack.MsgOptionText("via response_url", false)); err != nil {
			t.Fatal(err)
		}
		snap := f.Snapshot()
		if len(snap.Ephemerals) != 2 {
			t.Fatalf("ephemerals %+v", snap.Ephemerals)
		}
		if e := snap.Ephemerals[0]; e.User != "U0ALICE" || e.ThreadTS != root.TS || e.Text != "Already decided: Deny, by alice" || e.TS == "" || e.Via != "chat.postEphemeral" {
			t.Fatalf("ephemeral %+v", e)
		}
		if e := snap.Ephemerals[1]; e.User != "U0ALICE" || e.ThreadTS != root.TS || e.Text != "via response_url" || e.Via != "response_url" {
			t.Fatalf("response_url answer %+v", e)
		}
		if n := len(snap.Thread(channel, root.TS)); n != 1 {
			t.Fatalf("ephemeral messages stored in the thread: %d messages", n)
		}
		// A response_url takes five answers, then no more.
		for i := 2; i <= 6; i++ {
			_, _, err := api.PostMessage(channel, slack.MsgOptionResponseURL(in.ResponseURL, slack.ResponseTypeEphemeral), slack.MsgOptionText("again", false))
			if (err == nil) != (i <= 5) {
				t.Fatalf("answer %d through the response_url: %v", i, err)
			}
		}
		for _, tc := range []struct{ channel, user, text, want string }{
			{"C999", "U0ALICE", "x", "channel_not_found"},
			{channel, "", "x", "user_not_in_channel"},
			{channel, "U0ALICE", "", "no_text"},
		} {
			if _, err := api.PostEphemeral(tc.channel, tc.user, slack.MsgOptionText(tc.text, false)); err == nil || err.Error() != tc.want {
				t.Errorf("PostEphemeral(%q, %q, %q) = %v, want %s", tc.channel, tc.user, tc.text, err, tc.want)
			}
		}
	})

	t.Run("an update without blocks keeps them, blocks=[] removes the buttons", func(t *testing.T) {
		if _, _, _, err := api.UpdateMessage(channel, ts, slack.MsgOptionText("edited, blocks kept", false)); err != nil {
			t.Fatal(err)
		}
		if got := f.Snapshot().Thread(channel, root.TS)[0].Buttons; len(got) != 2 {
			t.Fatalf("buttons after a text-only update %+v", got)
		}
		if _, _, _, err := api.UpdateMessage(channel, ts, slack.MsgOptionText("Decided: Deny, by alice", false), slack.MsgOptionBlocks()); err != nil {
			t.Fatal(err)
		}
		m := f.Snapshot().Thread(channel, root.TS)[0]
		if m.Buttons != nil || m.Blocks != nil || m.Text != "Decided: Deny, by alice" {
			t.Fatalf("after blocks=[]: %+v", m)
		}
		if _, err := f.Click(fakeslack.Click{Channel: channel, TS: ts, ActionID: "ask1:0", User: "U0ALICE"}); err == nil {
			t.Fatal("a removed button was clicked")
		}
		// A person whose Slack still shows the buttons clicks all the same.
		late, err := f.Click(fakeslack.Click{Channel: channel, TS: ts, ActionID: "ask1:0", User: "U0ALICE", Stale: true})
		if err != nil {
			t.Fatal(err)
		}
		e := c.next(t, socketmode.EventTypeInteractive, nil)
		if cb := e.Data.(slack.InteractionCallback); e.Request.EnvelopeID != late.EnvelopeID || cb.ActionCallback.BlockActions[0].ActionID != "ask1:0" {
			t.Fatalf("late click %+v", cb)
		}
		_ = c.sm.AckCtx(context.Background(), late.EnvelopeID, nil)
	})
	if err := c.stop(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("RunContext = %v", err)
	}
}

func TestBlockKitLimits(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{BotTokens: []string{botTok}, Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	many := func(n int) []slack.BlockElement {
		var out []slack.BlockElement
		for i := range n {
			out = append(out, button("a"+strings.Repeat("x", i), "v", "b"))
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		buttons []slack.BlockElement
		pointer string // "" when Slack takes it
	}{
		{"75-character label", []slack.BlockElement{button("a", "v", strings.Repeat("é", 75))}, ""},
		{"76-character label", []slack.BlockElement{button("a", "v", strings.Repeat("é", 76))}, "/blocks/1/elements/0/text/text"},
		{"255-character action_id", []slack.BlockElement{button(strings.Repeat("a", 255), "v", "b")}, ""},
		{"256-character action_id", []slack.BlockElement{button(strings.Repeat("a", 256), "v", "b")}, "/blocks/1/elements/0/action_id"},
		{"2000-character value", []slack.BlockElement{button("a", strings.Repeat("v", 2000), "b")}, ""},
		{"2001-character value", []slack.BlockElement{button("a", strings.Repeat("v", 2001), "b")}, "/blocks/1/elements/0/value"},
		{"25 buttons", many(25), ""},
		{"26 buttons", many(26), "/blocks/1/elements"},
		{"two buttons, one action_id", []slack.BlockElement{button("a", "1", "b"), button("a", "2", "c")}, "/blocks/1/elements/1/action_id"},
		{"no buttons", nil, "/blocks/1/elements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := api.PostMessage(channel, slack.MsgOptionText("q", false), question("q", tc.buttons...))
			if tc.pointer == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se slack.SlackErrorResponse
			if !errors.As(err, &se) || se.Err != "invalid_blocks" || len(se.ResponseMetadata.Messages) != 1 ||
				!strings.HasSuffix(se.ResponseMetadata.Messages[0], "[json-pointer:"+tc.pointer+"]") {
				t.Fatalf("PostMessage = %v (%+v), want invalid_blocks at %s", err, se, tc.pointer)
			}
		})
	}
	t.Run("section text over 3000 characters", func(t *testing.T) {
		_, _, err := api.PostMessage(channel, question(strings.Repeat("x", 3001), button("a", "v", "b")))
		if err == nil || err.Error() != "invalid_blocks" {
			t.Fatalf("PostMessage = %v", err)
		}
	})
	t.Run("not an array", func(t *testing.T) {
		// slack-go only sends blocks it built, so this one goes by hand.
		resp, err := http.PostForm(f.URL()+"/api/chat.postMessage", url.Values{
			"token": {botTok}, "channel": {channel}, "text": {"q"}, "blocks": {`{"type":"section"}`},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var answer struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || answer.OK || answer.Error != "invalid_blocks_format" {
			t.Fatalf("answer %+v, %v", answer, err)
		}
	})
	if n := len(f.Snapshot().Messages); n != 4 {
		t.Fatalf("%d messages stored, want the 4 accepted", n)
	}
}
