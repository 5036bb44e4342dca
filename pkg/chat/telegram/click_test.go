package telegram

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/spec"
)

// How each verdict is answered: the outcome privately, a refusal as an
// alert, within the service's 200 characters.
func TestClickAnswer(t *testing.T) {
	long := strings.Repeat("n", 300)
	for _, tc := range []struct {
		v     inbound.Verdict
		text  string
		alert bool
	}{
		{inbound.Verdict{Kind: inbound.Decided, Choice: "Approve", By: "alice"}, "Decided: Approve", false},
		{inbound.Verdict{Kind: inbound.AlreadyDecided, Choice: "Deny", By: "bob"}, "Already decided: Deny, by bob", false},
		{inbound.Verdict{Kind: inbound.AlreadyDecided, Choice: "expired"}, "Already decided: expired", false},
		{inbound.Verdict{Kind: inbound.Refused}, "You may not decide this question.", true},
		{inbound.Verdict{Kind: inbound.Unknown}, "This question is not known to this bot.", false},
		{inbound.Verdict{Kind: inbound.AlreadyDecided, Choice: "Approve", By: long}, "Already decided: Approve, by " + strings.Repeat("n", 200-30) + "…", false},
	} {
		text, alert := clickAnswer(tc.v)
		if text != tc.text || alert != tc.alert {
			t.Errorf("clickAnswer(%+v) = %q %v, want %q %v", tc.v, text, alert, tc.text, tc.alert)
		}
	}
}

func TestClickOf(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	chat := models.Chat{ID: -1001000000001}
	msg := func(m *models.Message) models.MaybeInaccessibleMessage {
		return models.MaybeInaccessibleMessage{Type: models.MaybeInaccessibleMessageTypeMessage, Message: m}
	}
	alice := models.User{ID: 42, FirstName: "Alice", Username: "alice_w"}
	for _, tc := range []struct {
		name string
		q    models.CallbackQuery
		want inbound.Click
		ours bool
	}{
		{"in a topic", models.CallbackQuery{ID: "q1", From: alice, Data: "01JASK:0", Message: msg(&models.Message{ID: 9, MessageThreadID: 3, Chat: chat, Date: 1})},
			inbound.Click{ID: "q1", Place: "3", Message: "9", User: "42", Name: "alice_w", Data: "01JASK:0", Time: now}, true},
		{"no username", models.CallbackQuery{ID: "q1", From: models.User{ID: 43, FirstName: "Bo"}, Data: "d", Message: msg(&models.Message{ID: 9, Chat: chat, Date: 1})},
			inbound.Click{ID: "q1", Message: "9", User: "43", Name: "Bo", Data: "d", Time: now}, true},
		{"inaccessible", models.CallbackQuery{ID: "q1", From: alice, Data: "d", Message: models.MaybeInaccessibleMessage{
			Type: models.MaybeInaccessibleMessageTypeInaccessibleMessage, InaccessibleMessage: &models.InaccessibleMessage{Chat: chat, MessageID: 9}}},
			inbound.Click{ID: "q1", Message: "9", User: "42", Name: "alice_w", Data: "d", Time: now}, true},
		{"another chat", models.CallbackQuery{ID: "q1", From: alice, Data: "d", Message: msg(&models.Message{ID: 9, Chat: models.Chat{ID: -1002}, Date: 1})},
			inbound.Click{ID: "q1", Message: "9", User: "42", Name: "alice_w", Data: "d", Time: now}, false},
		{"an inline message", models.CallbackQuery{ID: "q1", From: alice, Data: "d", InlineMessageID: "x"},
			inbound.Click{ID: "q1", User: "42", Name: "alice_w", Data: "d", Time: now}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ours := clickOf(&tc.q, testChat, now)
			if got != tc.want || ours != tc.ours {
				t.Errorf("clickOf = %+v %v, want %+v %v", got, ours, tc.want, tc.ours)
			}
		})
	}
}

// decider decides clicks as told, recording the offset saved on disk at
// the moment each was handed on, and the answers given.
type decider struct {
	recorder
	verdict inbound.Verdict
	err     error
	clicks  []inbound.Click
	answers []string
}

func (d *decider) Decide(_ context.Context, c inbound.Click) (inbound.Verdict, error) {
	n, _ := d.store.load()
	d.saved = append(d.saved, n)
	d.clicks = append(d.clicks, c)
	return d.verdict, d.err
}

func (d *decider) answer(_ context.Context, id, text string, _ bool) error {
	n, _ := d.store.load()
	d.saved = append(d.saved, n)
	d.answers = append(d.answers, id+": "+text)
	return errors.New("query is too old") // a failed answer confirms all the same
}

func clickUpdate(id int64, chatID int64) models.Update {
	return models.Update{ID: id, CallbackQuery: &models.CallbackQuery{ID: "q" + strconvI(id), From: models.User{ID: 42, FirstName: "Alice"}, Data: "01JASK:0",
		Message: models.MaybeInaccessibleMessage{Message: &models.Message{ID: 9, MessageThreadID: 3, Chat: models.Chat{ID: chatID}, Date: 1}}}}
}

// A click is answered after Decide returned and before its offset is
// saved; a Decide that fails is not answered and not confirmed; a click
// of another chat is answered unknown without asking.
func TestLandDecidesClicks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		ups     []models.Update
		want    int64
		decided int
		answers []string
	}{
		{"decided", nil, []models.Update{clickUpdate(201, -1001000000001), clickUpdate(202, -1001000000001)}, 203, 2,
			[]string{"q201: Decided: Approve", "q202: Decided: Approve"}},
		{"Decide fails", errors.New("journal not writable"), []models.Update{clickUpdate(201, -1001000000001)}, 0, 1, nil},
		{"another chat", nil, []models.Update{clickUpdate(201, -1009)}, 202, 0, []string{"q201: This question is not known to this bot."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			d := &decider{recorder: recorder{store: newOffsetStore(dir)}, verdict: inbound.Verdict{Kind: inbound.Decided, Choice: "Approve"}, err: tc.err}
			tr := NewTransport(&spec.TelegramConfig{ChatID: testChat}, TransportOptions{Inbound: d, StateDir: dir})
			err := tr.land(context.Background(), tc.ups, 1, d.answer)
			if (err != nil) != (tc.err != nil) {
				t.Fatalf("land = %v", err)
			}
			for i, n := range d.saved {
				if n != 0 {
					t.Errorf("step %d (a decision or an answer) came with offset %d already saved", i, n)
				}
			}
			if got, _ := newOffsetStore(dir).load(); got != tc.want || len(d.clicks) != tc.decided || strings.Join(d.answers, "|") != strings.Join(tc.answers, "|") {
				t.Errorf("offset %d (want %d), decided %d (want %d), answers %q (want %q)", got, tc.want, len(d.clicks), tc.decided, d.answers, tc.answers)
			}
		})
	}
}
