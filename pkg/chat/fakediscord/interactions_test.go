package fakediscord_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// Buttons, clicks and their answers, each seen through discordgo as it
// would see Discord.

// askRow is one action row: the first button primary, the others secondary.
func askRow(ids ...string) []discordgo.MessageComponent {
	var bs []discordgo.MessageComponent
	for i, id := range ids {
		style := discordgo.SecondaryButton
		if i == 0 {
			style = discordgo.PrimaryButton
		}
		bs = append(bs, discordgo.Button{Label: "label " + id, Style: style, CustomID: id})
	}
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: bs}}
}

// buttonsOf are the custom_ids of a message's buttons as discordgo decoded them.
func buttonsOf(t *testing.T, m *discordgo.Message) []string {
	t.Helper()
	var ids []string
	for _, c := range m.Components {
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			t.Fatalf("component %T, want an action row", c)
		}
		for _, b := range row.Components {
			btn, ok := b.(*discordgo.Button)
			if !ok {
				t.Fatalf("row component %T, want a button", b)
			}
			ids = append(ids, btn.CustomID)
		}
	}
	return ids
}

// interactions collects INTERACTION_CREATE events.
func interactions(s *discordgo.Session) <-chan *discordgo.InteractionCreate {
	ch := make(chan *discordgo.InteractionCreate, 100)
	s.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) { ch <- i })
	return ch
}

func TestButtonsAndClicksThroughDiscordgo(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}})
	s := newSession(t, f, token)
	clicks := interactions(s)
	updates := make(chan *discordgo.MessageUpdate, 10)
	s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageUpdate) { updates <- m })
	if err := open(t, s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	f.SetGlobalName(user, "Alice")

	posted, err := s.ChannelMessageSendComplex(channel, &discordgo.MessageSend{Content: "May I?", Components: askRow("ask:0", "ask:1")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ChannelMessage(channel, posted.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ids := buttonsOf(t, got); strings.Join(ids, ",") != "ask:0,ask:1" {
		t.Fatalf("GET gives buttons %q", ids)
	}
	first := got.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.Button)
	if first.Label != "label ask:0" || first.Style != discordgo.PrimaryButton {
		t.Fatalf("first button = %+v", first)
	}

	click := func(id string) (fakediscord.Interaction, *discordgo.InteractionCreate) {
		t.Helper()
		in, err := f.Click(channel, posted.ID, user, id)
		if err != nil {
			t.Fatal(err)
		}
		return in, receive(t, clicks, "INTERACTION_CREATE "+in.ID, func(i *discordgo.InteractionCreate) bool { return i.ID == in.ID })
	}

	t.Run("a click reaches the bot as a component interaction", func(t *testing.T) {
		in, ev := click("ask:1")
		data, ok := ev.Data.(discordgo.MessageComponentInteractionData)
		switch {
		case ev.Type != discordgo.InteractionMessageComponent || !ok:
			t.Fatalf("interaction type %v data %T", ev.Type, ev.Data)
		case data.CustomID != "ask:1" || data.ComponentType != discordgo.ButtonComponent:
			t.Fatalf("data = %+v", data)
		case ev.Member == nil || ev.Member.User == nil || ev.Member.User.ID != user || ev.Member.User.GlobalName != "Alice" || ev.User != nil:
			t.Fatalf("member %+v user %+v", ev.Member, ev.User)
		case ev.Message == nil || ev.Message.ID != posted.ID || len(buttonsOf(t, ev.Message)) != 2:
			t.Fatalf("message = %+v", ev.Message)
		case ev.ChannelID != channel || ev.GuildID != f.GuildID() || ev.AppID != fakediscord.ApplicationID(token) || ev.Token != in.Token:
			t.Fatalf("interaction = %+v", ev.Interaction)
		}
		if at, err := discordgo.SnowflakeTimestamp(ev.ID); err != nil || at.Sub(in.At).Abs() > time.Second {
			t.Fatalf("interaction ID time %v, clicked at %v (%v)", at, in.At, err)
		}
	})

	t.Run("one answer acknowledges; a second is 40060", func(t *testing.T) {
		in, ev := click("ask:0")
		eph := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "You may not decide this question.", Flags: discordgo.MessageFlagsEphemeral}}
		if err := s.InteractionRespond(ev.Interaction, eph); err != nil {
			t.Fatal(err)
		}
		wantREST(t, s.InteractionRespond(ev.Interaction, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}), 400, 40060)
		i, _ := f.Snapshot().Interaction(in.ID)
		a, ok := i.Acknowledged()
		if !ok || a.Type != 4 || a.Flags != 64 || a.Content != "You may not decide this question." || len(i.Answers) != 2 || i.Answers[1].Code != 40060 {
			t.Fatalf("answers %+v", i.Answers)
		}
		if n := len(f.Snapshot().In(channel)); n != 1 {
			t.Fatalf("an ephemeral answer stored a message: %d in the channel", n)
		}
	})

	t.Run("deferred update and a visible answer", func(t *testing.T) {
		_, ev := click("ask:0")
		if err := s.InteractionRespond(ev.Interaction, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}); err != nil {
			t.Fatal(err)
		}
		_, ev = click("ask:1")
		if err := s.InteractionRespond(ev.Interaction, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "for all to see"}}); err != nil {
			t.Fatal(err)
		}
		if in := f.Snapshot().In(channel); len(in) != 2 || in[1].Content != "for all to see" || in[1].AuthorID != fakediscord.BotUserID(token) {
			t.Fatalf("channel holds %+v", in)
		}
	})

	t.Run("an unknown interaction or token is 10062", func(t *testing.T) {
		_, ev := click("ask:0")
		forged := *ev.Interaction
		forged.Token = "interaction.forged"
		wantREST(t, s.InteractionRespond(&forged, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}), 404, 10062)
		forged = *ev.Interaction
		forged.ID = "1"
		wantREST(t, s.InteractionRespond(&forged, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}), 404, 10062)
		if err := s.InteractionRespond(ev.Interaction, &discordgo.InteractionResponse{Type: 5}); restCode(err) != 50035 {
			t.Fatalf("type 5 (not emulated) answered %v", err)
		}
		if err := s.InteractionRespond(ev.Interaction, &discordgo.InteractionResponse{Type: 4, Data: &discordgo.InteractionResponseData{}}); restCode(err) != 50006 {
			t.Fatalf("an empty message answered %v", err)
		}
	})

	t.Run("an update edits the message, components [] removes the buttons", func(t *testing.T) {
		_, ev := click("ask:0")
		done := "May I?\n\nDecided: ask:0"
		if err := s.InteractionRespond(ev.Interaction, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage,
			Data: &discordgo.InteractionResponseData{Content: done, Components: []discordgo.MessageComponent{}}}); err != nil {
			t.Fatal(err)
		}
		u := receive(t, updates, "MESSAGE_UPDATE", func(m *discordgo.MessageUpdate) bool { return m.ID == posted.ID })
		if u.Content != done || len(u.Components) != 0 {
			t.Fatalf("MESSAGE_UPDATE = %q %d components", u.Content, len(u.Components))
		}
		if _, err := f.Click(channel, posted.ID, user, "ask:9"); err == nil {
			t.Fatal("a button the message never had was clicked")
		}
		// A client that has not seen the edit yet still shows the button.
		if _, err := f.Click(channel, posted.ID, user, "ask:0"); err != nil {
			t.Fatalf("a removed button: %v", err)
		}
	})
}

func TestLateAnswerIsUnknownInteraction(t *testing.T) {
	t.Parallel()
	// A deadline already past when the answer comes: the 3 s of Discord
	// without the wait.
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}, InteractionDeadline: time.Nanosecond})
	s := newSession(t, f, token)
	clicks := interactions(s)
	if err := open(t, s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	posted, err := s.ChannelMessageSendComplex(channel, &discordgo.MessageSend{Content: "May I?", Components: askRow("a:0")})
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.Click(channel, posted.ID, user, "a:0")
	if err != nil {
		t.Fatal(err)
	}
	ev := receive(t, clicks, "INTERACTION_CREATE", func(i *discordgo.InteractionCreate) bool { return i.ID == in.ID })
	wantREST(t, s.InteractionRespond(ev.Interaction, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}), 404, 10062)
	if i, _ := f.Snapshot().Interaction(in.ID); len(i.Answers) != 1 || i.Answers[0].Code != 10062 {
		t.Fatalf("answers %+v", i.Answers)
	}
}

func TestComponentsThroughDiscordgo(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}})
	s := newSession(t, f, token)

	button := func(id, label string) discordgo.MessageComponent {
		return discordgo.Button{Label: label, Style: discordgo.SecondaryButton, CustomID: id}
	}
	row := func(cs ...discordgo.MessageComponent) discordgo.MessageComponent {
		return discordgo.ActionsRow{Components: cs}
	}
	five := row(button("1", "a"), button("2", "b"), button("3", "c"), button("4", "d"), button("5", "e"))
	for _, tc := range []struct {
		name string
		rows []discordgo.MessageComponent
		ok   bool
	}{
		{"five buttons, limits exactly", []discordgo.MessageComponent{five, row(button(strings.Repeat("é", 100), strings.Repeat("é", 80)))}, true},
		{"six buttons in a row", []discordgo.MessageComponent{row(button("1", "a"), button("2", "b"), button("3", "c"), button("4", "d"), button("5", "e"), button("6", "f"))}, false},
		{"six rows", []discordgo.MessageComponent{row(button("1", "a")), row(button("2", "a")), row(button("3", "a")), row(button("4", "a")), row(button("5", "a")), row(button("6", "a"))}, false},
		{"custom_id of 101", []discordgo.MessageComponent{row(button(strings.Repeat("x", 101), "a"))}, false},
		{"label of 81", []discordgo.MessageComponent{row(button("1", strings.Repeat("x", 81)))}, false},
		{"no label", []discordgo.MessageComponent{row(button("1", ""))}, false},
		{"custom_id twice", []discordgo.MessageComponent{row(button("1", "a")), row(button("1", "b"))}, false},
		{"an empty row", []discordgo.MessageComponent{row()}, false},
		{"a button outside a row", []discordgo.MessageComponent{button("1", "a")}, false},
		{"a link button", []discordgo.MessageComponent{row(discordgo.Button{Label: "a", Style: discordgo.LinkButton, URL: "https://example.com"})}, false},
	} {
		_, err := s.ChannelMessageSendComplex(channel, &discordgo.MessageSend{Content: tc.name, Components: tc.rows})
		if (err == nil) != tc.ok || (err != nil && restCode(err) != 50035) {
			t.Errorf("%s: post = %v, want ok %v or 50035", tc.name, err, tc.ok)
		}
	}

	m, err := s.ChannelMessageSendComplex(channel, &discordgo.MessageSend{Content: "q", Components: askRow("q:0", "q:1")})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(e *discordgo.MessageEdit) []string {
		t.Helper()
		e.ID, e.Channel = m.ID, channel
		out, err := s.ChannelMessageEditComplex(e)
		if err != nil {
			t.Fatal(err)
		}
		return buttonsOf(t, out)
	}
	text := "q, edited"
	if ids := edit(&discordgo.MessageEdit{Content: &text}); len(ids) != 2 {
		t.Fatalf("an edit without components left %q", ids)
	}
	if ids := edit(&discordgo.MessageEdit{Components: &[]discordgo.MessageComponent{row(button("r:0", "r"))}}); strings.Join(ids, ",") != "r:0" {
		t.Fatalf("components replaced by %q", ids)
	}
	if ids := edit(&discordgo.MessageEdit{Content: &text, Components: &[]discordgo.MessageComponent{}}); len(ids) != 0 {
		t.Fatalf("components [] left %q", ids)
	}
	if got := f.Snapshot().In(channel); got[len(got)-1].Buttons() != nil {
		t.Fatalf("the fake still holds buttons %q", got[len(got)-1].Buttons())
	}
	bad := &[]discordgo.MessageComponent{row(button(strings.Repeat("x", 101), "a"))}
	if _, err := s.ChannelMessageEditComplex(&discordgo.MessageEdit{ID: m.ID, Channel: channel, Components: bad}); restCode(err) != 50035 {
		t.Fatalf("an edit with a too long custom_id: %v", err)
	}
}
