package telegram

import (
	"context"
	"errors"
	"testing"

	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/spec"
)

const testChat = "-1001000000001"

// recorder lands events, failing at failAt, and records the offset saved
// on disk at the moment each was handed on.
type recorder struct {
	store  *offsetStore
	failAt string
	seen   []string
	saved  []int64
}

func (r *recorder) Receive(_ context.Context, ev inbound.Event) (inbound.Outcome, error) {
	n, _ := r.store.load()
	r.saved = append(r.saved, n)
	if ev.ID == r.failAt {
		return 0, errors.New("inbox not writable")
	}
	r.seen = append(r.seen, ev.ID)
	return inbound.Landed, nil
}

// Decide: the updates of these tests carry no clicks.
func (r *recorder) Decide(context.Context, inbound.Click) (inbound.Verdict, error) {
	return inbound.Verdict{}, errors.New("no clicks here")
}

func noAnswer(context.Context, string, string, bool) error { return errors.New("no clicks here") }

func updates(ids ...int64) []models.Update {
	var ups []models.Update
	for _, id := range ids {
		ups = append(ups, models.Update{ID: id, Message: &models.Message{ID: int(id - 100), Chat: models.Chat{ID: -1001000000001}, Text: "hi", From: &models.User{ID: 7}}})
	}
	return ups
}

// The offset that confirms an update is saved only after the inbound side
// landed it: while each is handed on, the saved offset still names it,
// so a crash there makes the service send it again.
func TestLandSavesTheOffsetOnlyAfterLanding(t *testing.T) {
	for _, tc := range []struct {
		name   string
		failAt string
		want   int64
		seen   int
	}{
		{"all land", "", 204, 3},
		{"the second fails", "102", 202, 1},
		{"the first fails", "101", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r := &recorder{store: newOffsetStore(dir), failAt: tc.failAt}
			tr := NewTransport(&spec.TelegramConfig{ChatID: testChat}, TransportOptions{Inbound: r, StateDir: dir})
			err := tr.land(context.Background(), updates(201, 202, 203), 1, noAnswer)
			if (err != nil) != (tc.failAt != "") {
				t.Fatalf("land = %v", err)
			}
			for i, n := range r.saved {
				if n != 0 {
					t.Errorf("update %d was handed on with offset %d already saved", i, n)
				}
			}
			if got, _ := newOffsetStore(dir).load(); got != tc.want {
				t.Errorf("saved offset = %d, want %d", got, tc.want)
			}
			if len(r.seen) != tc.seen {
				t.Errorf("landed %v", r.seen)
			}
		})
	}
}

// An update of another chat, or with no message, is confirmed unlanded.
func TestLandConfirmsWhatIsNotOurs(t *testing.T) {
	dir := t.TempDir()
	r := &recorder{store: newOffsetStore(dir)}
	tr := NewTransport(&spec.TelegramConfig{ChatID: testChat}, TransportOptions{Inbound: r, StateDir: dir})
	ups := []models.Update{{ID: 5}, {ID: 6, Message: &models.Message{ID: 1, Chat: models.Chat{ID: -1009}}}}
	if err := tr.land(context.Background(), ups, 1, noAnswer); err != nil {
		t.Fatal(err)
	}
	if got, _ := newOffsetStore(dir).load(); got != 7 || len(r.seen) != 0 {
		t.Errorf("offset %d, landed %v", got, r.seen)
	}
}
