package telegram

import (
	"context"
	"errors"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/relay"
)

// Decide decides the first click of each data, once: a later one is
// already decided.
func (b *inbox) Decide(_ context.Context, c inbound.Click) (inbound.Verdict, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail {
		return inbound.Verdict{}, errors.New("disk full")
	}
	b.landed["click "+c.Message]++
	if b.landed["click "+c.Message] > 1 {
		return inbound.Verdict{Kind: inbound.AlreadyDecided, Choice: "Approve", By: "alice"}, nil
	}
	return inbound.Verdict{Kind: inbound.Decided, Choice: "Approve", By: c.Name}, nil
}

// askOn posts an ask's last part through the poster and returns its id.
func askOn(t *testing.T, f *faketelegram.Server) int64 {
	t.Helper()
	id, err := newPoster(t, f).Post(ctxFor(t), relay.Part{Key: "a/0", Text: "Deploy?", Choices: askChoices})
	if err != nil {
		t.Fatal(err)
	}
	return id64(t, id)
}

func click(t *testing.T, f *faketelegram.Server, id int64) faketelegram.CallbackQuery {
	t.Helper()
	q, err := f.Click(faketelegram.Click{Message: id, From: alice, Data: askChoices[0].Data})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// A click reaches Decide and is answered as decided, a second one as
// already decided, each well within the 3 s the clicker waits; each
// update is confirmed after its answer.
func TestClicksAreDecidedAndAnswered(t *testing.T) {
	f := startFake(t, true)
	in := newInbox()
	h, _ := run(t, f, in, t.TempDir())
	h.waitFor(t, func(v chat.Health) bool { return v.Healthy })
	id := askOn(t, f)
	for _, want := range []string{"Decided: Approve", "Already decided: Approve, by alice"} {
		q := click(t, f, id)
		a, err := f.AwaitAnswer(ctxFor(t), q.ID)
		if err != nil || a.Text != want || a.ShowAlert {
			t.Fatalf("answer %+v, %v; want %q", a, err, want)
		}
		if late := a.At.Sub(q.Time); late > time.Second {
			t.Errorf("answered %v after the click", late)
		}
	}
	if _, err := f.WaitFor(ctxFor(t), func(sn faketelegram.Snapshot) bool {
		return len(sn.Updates) == 2 && sn.Updates[1].Confirmed
	}); err != nil {
		t.Fatalf("the clicks were not confirmed: %v", err)
	}
}

// A click whose Decide fails is not answered and not confirmed: the
// service sends it again, and it is decided once Decide works. Its
// query may be too old to answer by then; that answer is not tried again.
func TestAClickNotDecidedComesAgain(t *testing.T) {
	f, err := faketelegram.Start(faketelegram.Options{CallbackTimeout: time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	in := newInbox()
	in.fail = true
	h, _ := run(t, f, in, t.TempDir())
	h.waitFor(t, func(v chat.Health) bool { return v.Healthy })
	q := click(t, f, askOn(t, f))
	if _, err := f.WaitFor(ctxFor(t), func(sn faketelegram.Snapshot) bool {
		return len(sn.Updates) == 1 && sn.Updates[0].Deliveries >= 2
	}); err != nil {
		t.Fatalf("the click was not sent again: %v", err)
	}
	if _, err := f.AwaitAnswer(ctxFor(t), q.ID); !errors.Is(err, faketelegram.ErrNotAnswered) {
		t.Fatalf("a click not decided was answered: %v", err)
	}
	in.mu.Lock()
	in.fail = false
	in.mu.Unlock()
	sn, err := f.WaitFor(ctxFor(t), func(sn faketelegram.Snapshot) bool { return sn.Updates[0].Confirmed })
	if err != nil {
		t.Fatalf("never confirmed: %v", err)
	}
	if got, _ := sn.Query(q.ID); got.Answered || got.Answers != 1 {
		t.Errorf("the late answer: %+v", got)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.landed["click "+strconvI(q.Message)] != 1 {
		t.Errorf("decided %d times", in.landed["click "+strconvI(q.Message)])
	}
}
