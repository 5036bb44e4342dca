package discord

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/inbound"
)

// buttonClick is a button's interaction as discordgo decodes it.
func buttonClick(member, user *discordgo.User) *discordgo.Interaction {
	i := &discordgo.Interaction{ID: "1579046655846514688", Token: "itoken-secret", Type: discordgo.InteractionMessageComponent,
		ChannelID: "thread-1", Message: &discordgo.Message{ID: "msg-1"}, User: user,
		Data: discordgo.MessageComponentInteractionData{CustomID: "01ASK:1", ComponentType: discordgo.ButtonComponent}}
	if member != nil {
		i.Member = &discordgo.Member{User: member}
	}
	return i
}

func TestClickOf(t *testing.T) {
	t.Parallel()
	at, _ := discordgo.SnowflakeTimestamp("1579046655846514688")
	alice := &discordgo.User{ID: "u1", Username: "alice", GlobalName: "Alice"}
	bob := &discordgo.User{ID: "u2", Username: "bob"}
	slash := buttonClick(alice, nil)
	slash.Type, slash.Data = discordgo.InteractionApplicationCommand, discordgo.ApplicationCommandInteractionData{Name: "x"}
	menu := buttonClick(alice, nil)
	menu.Data = discordgo.MessageComponentInteractionData{CustomID: "01ASK:1", ComponentType: discordgo.SelectMenuComponent}
	noMessage := buttonClick(alice, nil)
	noMessage.Message = nil
	for _, tc := range []struct {
		name string
		i    *discordgo.Interaction
		want inbound.Click
		ok   bool
	}{
		{"a member's click, by their display name", buttonClick(alice, nil),
			inbound.Click{ID: "1579046655846514688", Place: "thread-1", Message: "msg-1", User: "u1", Name: "Alice", Data: "01ASK:1", Time: at}, true},
		{"a user without a display name: the username", buttonClick(nil, bob),
			inbound.Click{ID: "1579046655846514688", Place: "thread-1", Message: "msg-1", User: "u2", Name: "bob", Data: "01ASK:1", Time: at}, true},
		{"the member wins over user", buttonClick(alice, bob),
			inbound.Click{ID: "1579046655846514688", Place: "thread-1", Message: "msg-1", User: "u1", Name: "Alice", Data: "01ASK:1", Time: at}, true},
		{"nobody clicked", buttonClick(nil, nil), inbound.Click{}, false},
		{"a slash command", slash, inbound.Click{}, false},
		{"a select menu", menu, inbound.Click{}, false},
		{"no message", noMessage, inbound.Click{}, false},
	} {
		got, ok := clickOf(tc.i)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: clickOf = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// decideFunc is a decider.
type decideFunc func(context.Context, inbound.Click) (inbound.Verdict, error)

func (f decideFunc) Decide(ctx context.Context, c inbound.Click) (inbound.Verdict, error) {
	return f(ctx, c)
}

func TestOnClickAnswersPerVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		v    inbound.Verdict
		want string
	}{
		{"decided", inbound.Verdict{Kind: inbound.Decided, Choice: "Deny", By: "Alice"}, "Decided: Deny"},
		{"already decided", inbound.Verdict{Kind: inbound.AlreadyDecided, Choice: "Approve", By: "Bob"}, "Already decided: Approve, by Bob"},
		{"already expired", inbound.Verdict{Kind: inbound.AlreadyDecided, Choice: "expired"}, "Already decided: expired"},
		{"refused", inbound.Verdict{Kind: inbound.Refused}, "You may not decide this question."},
		{"unknown", inbound.Verdict{Kind: inbound.Unknown}, "This question is not known to this bot."},
	} {
		var got []*discordgo.InteractionResponse
		respond := func(_ *discordgo.Interaction, r *discordgo.InteractionResponse, _ ...discordgo.RequestOption) error {
			got = append(got, r)
			return nil
		}
		decide := decideFunc(func(context.Context, inbound.Click) (inbound.Verdict, error) { return tc.v, nil })
		v, err := onClick(context.Background(), decide, respond, buttonClick(&discordgo.User{ID: "u1"}, nil), time.Now())
		if err != nil || v != tc.v || len(got) != 1 {
			t.Fatalf("%s: onClick = %+v, %v; %d answers", tc.name, v, err, len(got))
		}
		r := got[0]
		if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Data == nil || r.Data.Content != tc.want ||
			r.Data.Flags != discordgo.MessageFlagsEphemeral || r.Data.AllowedMentions == nil || len(r.Data.AllowedMentions.Parse) != 0 {
			t.Errorf("%s: answered %+v %+v, want an ephemeral %q that pings no one", tc.name, r, r.Data, tc.want)
		}
	}
}

func TestOnClickWithoutAVerdictDoesNotAnswer(t *testing.T) {
	t.Parallel()
	answered := 0
	respond := func(*discordgo.Interaction, *discordgo.InteractionResponse, ...discordgo.RequestOption) error {
		answered++
		return nil
	}
	decided := 0
	decide := decideFunc(func(context.Context, inbound.Click) (inbound.Verdict, error) {
		decided++
		return inbound.Verdict{Kind: inbound.Decided, Choice: "Approve"}, nil
	})
	failing := decideFunc(func(context.Context, inbound.Click) (inbound.Verdict, error) {
		return inbound.Verdict{}, errors.New("the inbox is not writable")
	})
	member := &discordgo.User{ID: "u1"}

	if _, err := onClick(context.Background(), failing, respond, buttonClick(member, nil), time.Now()); err == nil || answered != 0 {
		t.Fatalf("Decide failed: onClick = %v, %d answers; want an error and no answer", err, answered)
	}
	slash := buttonClick(member, nil)
	slash.Type = discordgo.InteractionApplicationCommand
	if _, err := onClick(context.Background(), decide, respond, slash, time.Now()); !errors.Is(err, errNotAClick) || decided+answered != 0 {
		t.Fatalf("a slash command: onClick = %v, %d decided, %d answered", err, decided, answered)
	}
	// Decided, but Discord's deadline has passed: the answer would be 10062.
	if _, err := onClick(context.Background(), decide, respond, buttonClick(member, nil), time.Now().Add(-answerWithin)); !errors.Is(err, errTooLate) ||
		decided != 1 || answered != 0 {
		t.Fatalf("a late answer: onClick = %v, %d decided, %d answered", err, decided, answered)
	}
}

func TestOnClickKeepsTheInteractionTokenOutOfErrors(t *testing.T) {
	t.Parallel()
	i := buttonClick(&discordgo.User{ID: "u1"}, nil)
	respond := func(i *discordgo.Interaction, _ *discordgo.InteractionResponse, _ ...discordgo.RequestOption) error {
		return errors.New(`Post "https://discord.com/api/v9/interactions/` + i.ID + "/" + i.Token + `/callback": connection reset`)
	}
	decide := decideFunc(func(context.Context, inbound.Click) (inbound.Verdict, error) {
		return inbound.Verdict{Kind: inbound.Refused}, nil
	})
	_, err := onClick(context.Background(), decide, respond, i, time.Now())
	if err == nil || strings.Contains(err.Error(), i.Token) || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("onClick = %v; want the failure without the token", err)
	}
}
