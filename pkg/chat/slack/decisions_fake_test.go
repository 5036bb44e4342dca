package slack_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

// suiteStranger is a person in the suite's channel who may not decide.
const suiteStranger = "U0STRANGER"

// message is message id of place (a thread's root ts) as the fake has it now.
func (r fake) message(place, id string) (fakeslack.Message, bool) {
	for _, m := range r.f.Snapshot().Thread(suiteChannel, place) {
		if m.TS == id {
			return m, true
		}
	}
	return fakeslack.Message{}, false
}

func (r fake) Asked(place string) []string {
	var ids []string
	for _, m := range r.f.Snapshot().Thread(suiteChannel, place) {
		if len(m.PostedButtons) > 0 {
			ids = append(ids, m.TS)
		}
	}
	return ids
}

// Buttons are the buttons' values: the poster makes each the choice's data.
func (r fake) Buttons(place, id string) []string {
	m, _ := r.message(place, id)
	var data []string
	for _, b := range m.Buttons {
		data = append(data, b.Value)
	}
	return data
}

// Text is the text as a person reads it, Slack's escapes undone.
func (r fake) Text(place, id string) string {
	m, _ := r.message(place, id)
	return unescaped(m.Text)
}

func unescaped(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

func (r fake) Stranger() string { return suiteStranger }

// Click clicks as Slack does: an interactive envelope to the bot's
// socket. The bot has answered once it acked the envelope, which Slack
// wants within 3 s of its delivery (else it tells the clicker the click
// failed, and delivers it again); its answer is the ephemeral message the
// clicker got by then, "" for none (the ack alone).
func (r fake) Click(ctx context.Context, place, id, user, data string) (string, error) {
	m, ok := r.message(place, id)
	if !ok {
		return "", fmt.Errorf("no message %s in thread %s", id, place)
	}
	// A button the outcome's edit removed is still clicked, as by a
	// person whose Slack showed the edit late: a click the bot must
	// answer all the same.
	i := slices.IndexFunc(m.PostedButtons, func(b fakeslack.Button) bool { return b.Value == data })
	if i < 0 {
		return "", fmt.Errorf("message %s was posted with no button %q", id, data)
	}
	before := len(r.f.Snapshot().Ephemerals)
	in, err := r.f.Click(fakeslack.Click{Channel: suiteChannel, TS: id, ActionID: m.PostedButtons[i].ActionID,
		User: user, Name: strings.ToLower(user), Stale: true})
	if err != nil {
		return "", err
	}
	envelope := func(s fakeslack.Snapshot) fakeslack.Envelope {
		for _, e := range s.Envelopes {
			if e.ID == in.EnvelopeID {
				return e
			}
		}
		return fakeslack.Envelope{}
	}
	sn, err := r.f.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return envelope(s).Deliveries > 0 })
	if err != nil {
		return "", fmt.Errorf("the click was never delivered: %w", err)
	}
	dctx, cancel := context.WithDeadline(ctx, envelope(sn).DeliveredAt[0].Add(fakeslack.DefaultAckTimeout))
	defer cancel()
	sn, err = r.f.WaitFor(dctx, func(s fakeslack.Snapshot) bool { return envelope(s).Acked })
	if err != nil {
		return "", fmt.Errorf("the click was not acknowledged within %s of its delivery: %w", fakeslack.DefaultAckTimeout, err)
	}
	for _, e := range sn.Ephemerals[before:] {
		if e.User == user && e.Channel == suiteChannel {
			return unescaped(e.Text), nil
		}
	}
	return "", nil
}
