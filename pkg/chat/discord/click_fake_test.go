package discord

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// Clicks on fakediscord, decided by a stand-in for the inbound side and
// answered through discordgo as the transport does.
func TestClicksAreAnsweredAtTheFake(t *testing.T) {
	const tok, channel, alice, stranger = "tok-click", "200000000000000005", "300000000000000001", "300000000000000999"
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{tok}, Channels: []string{channel}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	f.SetGlobalName(alice, "Alice")
	cfg := &spec.DiscordConfig{BotToken: spec.NewSecret(tok), ParentChannelID: channel, APIURL: f.URL()}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := NewPoster(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	askID := "01JASK0000000000000000000A"
	msg, err := p.Post(ctx, relay.Part{Key: askID + "/0", Text: "May I?", FirstAttempt: time.Now(),
		Choices: []relay.Choice{{Data: askID + ":0", Label: "Approve"}, {Data: askID + ":1", Label: "Deny"}}})
	if err != nil {
		t.Fatal(err)
	}

	// The stand-in decides alice's first click, refuses anyone else and
	// fails when told to.
	fail := make(chan bool, 1)
	decide := decideFunc(func(_ context.Context, c inbound.Click) (inbound.Verdict, error) {
		select {
		case <-fail:
			return inbound.Verdict{}, errors.New("the inbox is not writable")
		default:
		}
		if c.User != alice || c.Place != channel || c.Message != msg {
			return inbound.Verdict{Kind: inbound.Refused}, nil
		}
		return inbound.Verdict{Kind: inbound.Decided, Choice: "Deny", By: c.Name}, nil
	})
	d := &transport{cfg: cfg}
	s, err := d.session()
	if err != nil {
		t.Fatal(err)
	}
	handled := make(chan error, 10)
	s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		_, err := onClick(ctx, decide, s.InteractionRespond, ic.Interaction, time.Now())
		handled <- err
	})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	click := func(user, data string) (fakediscord.Interaction, error) {
		t.Helper()
		in, err := f.Click(channel, msg, user, data)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-handled:
			i, _ := f.Snapshot().Interaction(in.ID)
			return i, err
		case <-ctx.Done():
			t.Fatal("the click never reached the handler")
		}
		return fakediscord.Interaction{}, nil
	}

	for _, tc := range []struct {
		user, data, want string
	}{
		{alice, askID + ":1", "Decided: Deny"},
		{stranger, askID + ":0", "You may not decide this question."},
	} {
		in, err := click(tc.user, tc.data)
		a, ok := in.Acknowledged()
		if err != nil || !ok || a.Type != 4 || a.Flags != 64 || a.Content != tc.want || len(in.Answers) != 1 {
			t.Fatalf("click of %s: %v, answers %+v; want one ephemeral %q", tc.user, err, in.Answers, tc.want)
		}
		if took := a.At.Sub(in.At); took >= fakediscord.DefaultInteractionDeadline {
			t.Fatalf("answered after %v, past Discord's deadline", took)
		}
		t.Logf("click of %s answered %v after it was made", tc.user, a.At.Sub(in.At))
	}

	fail <- true
	if in, err := click(alice, askID+":0"); err == nil || len(in.Answers) != 0 {
		t.Fatalf("a failed decision: %v, answers %+v; want an error and no answer", err, in.Answers)
	}
}
