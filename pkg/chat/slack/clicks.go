package slack

import (
	"context"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/inbound"
)

// clicksOf are the clicks of ask buttons a block_actions payload carries
// from the configured channel: each action whose value (or action_id:
// the poster sets both to the choice's data) is an ask's choice data.
// Anything else (another kind of interaction, another channel, data no
// ask button carries) is none. The place is the thread's root, as for a
// reply there: the container's thread_ts, the message's, or the message
// itself when it is a root.
func clicksOf(cb slackapi.InteractionCallback, channel string) []inbound.Click {
	if cb.Type != slackapi.InteractionTypeBlockActions {
		return nil
	}
	ch := cb.Container.ChannelID
	if ch == "" {
		ch = cb.Channel.ID
	}
	msg := cb.Container.MessageTs
	if msg == "" {
		msg = cb.Message.Timestamp
	}
	if ch != channel || msg == "" {
		return nil
	}
	place := cb.Container.ThreadTs
	if place == "" {
		place = cb.Message.ThreadTimestamp
	}
	if place == "" {
		place = msg
	}
	var out []inbound.Click
	for _, a := range cb.ActionCallback.BlockActions {
		data := a.Value
		if _, _, ok := bus.ParseChoiceData(data); !ok {
			data = a.ActionID
		}
		if _, _, ok := bus.ParseChoiceData(data); !ok {
			continue
		}
		out = append(out, inbound.Click{ID: cb.TriggerID, Place: place, Message: msg,
			User: cb.User.ID, Name: cb.User.Name, Data: data, Time: tsTime(a.ActionTs)})
	}
	return out
}

// answerOf is what the clicker is told, privately, of a verdict: nothing
// for the click that decided (the ack is its answer, and the question is
// about to be edited to show the outcome), the verdict's own wording for
// the rest.
func answerOf(v inbound.Verdict) (text string, send bool) {
	if v.Kind == inbound.Decided {
		return "", false
	}
	return v.Answer(), true
}

// interactive handles one interactive envelope. A click of an ask's
// button is decided by the inbound side first; only once every click in
// it has a verdict is the clicker answered (chat.postEphemeral in the
// question's thread, attempted once, within the ack's deadline) and then
// the envelope acked, so an ack means the click is settled. A click the
// inbound side could not settle (an error, or no verdict in time) leaves
// the envelope unacked: Slack delivers it again, and the same click then
// decides as it would have. Anything else is acked at once.
func (t *transport) interactive(ctx context.Context, client *socketmode.Client, api *slackapi.Client, ev socketmode.Event) {
	if ev.Request == nil {
		return
	}
	id := ev.Request.EnvelopeID
	ack := func() { _ = client.AckCtx(ctx, id, nil) }
	cb, _ := ev.Data.(slackapi.InteractionCallback)
	clicks := clicksOf(cb, t.cfg.ChannelID)
	if len(clicks) == 0 {
		ack()
		return
	}
	deadline := time.Now().Add(ackWithin)
	go func() {
		ctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		verdicts := make([]inbound.Verdict, len(clicks))
		for i, c := range clicks {
			v, err := t.opts.Inbound.Decide(ctx, c)
			if err != nil {
				t.opts.Log.Error(err, "a click was not settled; left unacknowledged for Slack to deliver again", "message", c.Message, "user", c.User)
				return
			}
			verdicts[i] = v
		}
		for i, c := range clicks {
			if text, send := answerOf(verdicts[i]); send {
				t.answer(ctx, api, c, text)
			}
		}
		ack()
	}()
}

// answer shows text to the clicker only, in the question's thread. A
// failed answer is logged, not retried: the click is settled either way.
func (t *transport) answer(ctx context.Context, api *slackapi.Client, c inbound.Click, text string) {
	opts := append(literal(escape(text)), slackapi.MsgOptionTS(c.Place))
	if _, err := api.PostEphemeralContext(ctx, t.cfg.ChannelID, c.User, opts...); err != nil {
		t.opts.Log.Info("could not answer a click", "user", c.User, "err", scrub(err, t.cfg.BotToken.Reveal()).Error())
	}
}
