package discord

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/inbound"
)

// answerWithin is Discord's deadline for answering an interaction, counted
// here from when the click reached the transport: past it Discord answers
// 10062 Unknown interaction and the clicker saw "This interaction failed".
const answerWithin = 3 * time.Second

// clickOf is a button's interaction as the inbound side judges it; ok is
// false for any other interaction (a slash command, a modal), which this
// bot never asked for and leaves unanswered. The clicker is member.user in
// a guild, user in a DM; their name is the display name (global_name),
// else the username. The time is the interaction's snowflake's.
func clickOf(i *discordgo.Interaction) (inbound.Click, bool) {
	if i == nil || i.Type != discordgo.InteractionMessageComponent || i.Message == nil {
		return inbound.Click{}, false
	}
	data, ok := i.Data.(discordgo.MessageComponentInteractionData)
	u := i.User
	if i.Member != nil && i.Member.User != nil {
		u = i.Member.User
	}
	if !ok || data.ComponentType != discordgo.ButtonComponent || u == nil || u.ID == "" {
		return inbound.Click{}, false
	}
	name := u.GlobalName
	if name == "" {
		name = u.Username
	}
	at, _ := discordgo.SnowflakeTimestamp(i.ID)
	return inbound.Click{ID: i.ID, Place: i.ChannelID, Message: i.Message.ID, User: u.ID, Name: name, Data: data.CustomID, Time: at}, true
}

// responseOf is the answer to a click: a message only the clicker sees
// (type 4, EPHEMERAL), in the wording every service shows for the
// verdict. A decision is shown to all by the relay's edit of the
// question; this tells the clicker at once what became of their click.
func responseOf(v inbound.Verdict) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: v.Answer(), Flags: discordgo.MessageFlagsEphemeral,
			AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}},
	}
}

// decider is what a click needs of the inbound side.
type decider interface {
	Decide(ctx context.Context, c inbound.Click) (inbound.Verdict, error)
}

// responder answers an interaction (discordgo.Session.InteractionRespond).
type responder func(i *discordgo.Interaction, r *discordgo.InteractionResponse, opts ...discordgo.RequestOption) error

// onClick decides a click and answers it. The answer comes only after
// Decide returned: a Decided click is durable in the inbox before the
// clicker hears of it. When Decide fails nothing is known to have landed
// and the click is not answered: Discord shows the clicker that it
// failed, and the same click again decides as this one would have. An
// answer too late for Discord's deadline is not sent.
func onClick(ctx context.Context, in decider, respond responder, i *discordgo.Interaction, received time.Time) (inbound.Verdict, error) {
	c, ok := clickOf(i)
	if !ok {
		return inbound.Verdict{}, errNotAClick
	}
	dctx, cancel := context.WithTimeout(ctx, inboundWait)
	v, err := in.Decide(dctx, c)
	cancel()
	if err != nil {
		return v, &clickError{what: "deciding", err: err}
	}
	actx, cancel := context.WithDeadline(ctx, received.Add(answerWithin))
	defer cancel()
	if actx.Err() != nil {
		return v, &clickError{what: "answering", err: errTooLate}
	}
	if err := respond(i, responseOf(v), discordgo.WithContext(actx), discordgo.WithRestRetries(0), discordgo.WithRetryOnRatelimit(false)); err != nil {
		return v, &clickError{what: "answering", err: redactToken(err, i.Token)}
	}
	return v, nil
}

// codeAlreadyAcknowledged is Discord's answer to a second answer of one
// interaction.
const codeAlreadyAcknowledged = 40060

// answeredBefore says whether err is Discord refusing an answer because
// the interaction was answered already.
func answeredBefore(err error) bool {
	var re *discordgo.RESTError
	return errors.As(err, &re) && re.Message != nil && re.Message.Code == codeAlreadyAcknowledged
}

var (
	errNotAClick = errors.New("not a button's interaction")
	errTooLate   = errors.New("past Discord's 3 s deadline")
)

// clickError says which step of a click failed.
type clickError struct {
	what string
	err  error
}

func (e *clickError) Error() string { return e.what + " the click: " + e.err.Error() }
func (e *clickError) Unwrap() error { return e.err }

// redactToken keeps an interaction's token out of an error's text: the
// callback URL carries it, and an HTTP client's error quotes the URL. The
// token answers (and follows up) the interaction for 15 minutes.
func redactToken(err error, token string) error {
	if token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	// Not wrapped: the chain would still hold the URL.
	return errors.New(strings.ReplaceAll(err.Error(), token, "<interaction token>"))
}
