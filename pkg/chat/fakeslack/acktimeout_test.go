package fakeslack_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

const ackTimeout = 200 * time.Millisecond

// envelopeOf waits for a delivery of one envelope (any, when id is "").
func envelopeOf(id string) func(socketmode.Event) bool {
	return func(e socketmode.Event) bool { return e.Request != nil && (id == "" || e.Request.EnvelopeID == id) }
}

func envelopeFor(sn fakeslack.Snapshot, app, ts string) (fakeslack.Envelope, bool) {
	for _, e := range sn.Envelopes {
		if e.AppToken == app && e.MessageTS == ts {
			return e, true
		}
	}
	return fakeslack.Envelope{}, false
}

// A client that never acks gets the envelope again after each ack timeout,
// three times, and then no more; a late ack still counts.
func TestAckTimeoutRetriesThenGivesUp(t *testing.T) {
	t.Parallel()
	acks := make(chan fakeslack.Envelope, 10)
	f := start(t, fakeslack.Options{
		AppTokens: []string{appTok}, Channels: []string{channel}, AckTimeout: ackTimeout,
		OnAck: func(e fakeslack.Envelope) { acks <- e },
	})
	c := runAcking(t, newAPI(f, botTok, appTok), func(*socketmode.Request) bool { return false })
	c.next(t, socketmode.EventTypeHello, nil)

	in, err := f.InjectMessage(channel, user, "never acked", "")
	if err != nil {
		t.Fatal(err)
	}
	first := c.next(t, socketmode.EventTypeEventsAPI, envelopeOf(""))
	id := first.Request.EnvelopeID
	if first.Request.RetryAttempt != 0 || first.Request.RetryReason != "" {
		t.Fatalf("first delivery %+v", first.Request)
	}
	for attempt := 1; attempt <= 3; attempt++ {
		r := c.next(t, socketmode.EventTypeEventsAPI, envelopeOf(id)).Request
		if r.RetryAttempt != attempt || r.RetryReason != "timeout" {
			t.Fatalf("retry %d: retry_attempt %d, retry_reason %q", attempt, r.RetryAttempt, r.RetryReason)
		}
	}
	snap := waitFor(t, f, "give up", func(sn fakeslack.Snapshot) bool {
		e, ok := envelopeFor(sn, appTok, in.TS)
		return ok && e.GaveUp
	})
	e, _ := envelopeFor(snap, appTok, in.TS)
	if e.Deliveries != 4 || len(e.DeliveredAt) != 4 || e.Acked || e.SubType != "" {
		t.Fatalf("given-up envelope %+v", e)
	}
	for i := 1; i < 4; i++ {
		if gap := e.DeliveredAt[i].Sub(e.DeliveredAt[i-1]); gap < ackTimeout {
			t.Fatalf("retry %d came %s after the delivery before, ack timeout %s", i, gap, ackTimeout)
		}
	}

	// No fifth delivery: a second message's retries span three more
	// timeouts, and nothing of the first comes meanwhile.
	in2, err := f.InjectMessage(channel, user, "also never acked", "")
	if err != nil {
		t.Fatal(err)
	}
	var id2 string
	for {
		ev := c.next(t, socketmode.EventTypeEventsAPI, envelopeOf(""))
		if ev.Request.EnvelopeID == id {
			t.Fatalf("given-up envelope delivered again: %+v", ev.Request)
		}
		if id2 == "" {
			id2 = ev.Request.EnvelopeID
		}
		if ev.Request.RetryAttempt == 3 {
			break
		}
	}

	// A late ack is recorded, and OnAck saw the envelope before it.
	if err := c.sm.AckCtx(context.Background(), id, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-acks:
		if got.ID != id || got.Acked || !got.GaveUp || got.Deliveries != 4 {
			t.Fatalf("OnAck got %+v", got)
		}
	case <-time.After(waitLimit):
		t.Fatal("OnAck not called")
	}
	snap = waitFor(t, f, "late ack", acked(in.TS))
	if e, _ := envelopeFor(snap, appTok, in.TS); !e.GaveUp || e.AckedAt.Before(e.DeliveredAt[3]) {
		t.Fatalf("late-acked envelope %+v", e)
	}
	if e, _ := envelopeFor(snap, appTok, in2.TS); e.ID != id2 || e.Deliveries != 4 {
		t.Fatalf("second envelope %+v (delivered as %s)", e, id2)
	}
}

// A client that acks within the timeout gets each envelope once, and OnAck
// runs when the ack frame arrives, after what the client did before acking.
func TestAckInTimeIsDeliveredOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	type seen struct {
		env    fakeslack.Envelope
		onDisk bool
	}
	acks := make(chan seen, 10)
	const other = "xapp-never-acks"
	f := start(t, fakeslack.Options{
		AppTokens: []string{appTok, other}, Channels: []string{channel}, AckTimeout: ackTimeout,
		OnAck: func(e fakeslack.Envelope) {
			_, err := os.Stat(filepath.Join(dir, e.ID))
			acks <- seen{e, err == nil}
		},
	})
	// The acking client writes each event down before it acks, as a relay
	// that acks only what is durable does.
	c := runAcking(t, newAPI(f, botTok, appTok), func(r *socketmode.Request) bool {
		if err := os.WriteFile(filepath.Join(dir, r.EnvelopeID), r.Payload, 0o600); err != nil {
			t.Error(err)
			return false
		}
		return true
	})
	slow := runAcking(t, newAPI(f, botTok, other), func(*socketmode.Request) bool { return false })
	c.next(t, socketmode.EventTypeHello, nil)
	slow.next(t, socketmode.EventTypeHello, nil)

	in, err := f.InjectMessage(channel, user, "acked at once", "")
	if err != nil {
		t.Fatal(err)
	}
	c.next(t, socketmode.EventTypeEventsAPI, envelopeOf(""))
	select {
	case got := <-acks:
		if got.env.MessageTS != in.TS || got.env.Acked || got.env.Deliveries != 1 || !got.onDisk {
			t.Fatalf("OnAck got %+v", got)
		}
	case <-time.After(waitLimit):
		t.Fatal("OnAck not called")
	}
	waitFor(t, f, "ack", acked(in.TS))
	// Two ack timeouts later (the other app's envelope, sent at the same
	// moment, has been retried twice) the acked one was still sent once.
	snap := waitFor(t, f, "the other app's retries", func(sn fakeslack.Snapshot) bool {
		e, ok := envelopeFor(sn, other, in.TS)
		return ok && e.Deliveries >= 3
	})
	e, _ := envelopeFor(snap, appTok, in.TS)
	if e.Deliveries != 1 || !e.Acked || e.GaveUp || e.AckedAt.Before(e.DeliveredAt[0]) {
		t.Fatalf("acked envelope %+v", e)
	}
	for _, ev := range drain(c) {
		if ev.Type == socketmode.EventTypeEventsAPI {
			t.Fatalf("acked envelope delivered again: %+v", ev.Request)
		}
	}
}

// A lost ack is an ack timeout to the server: the envelope comes again,
// as a retry, and the second ack settles it.
func TestLostAckIsRetried(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{AppTokens: []string{appTok}, Channels: []string{channel}, AckTimeout: ackTimeout})
	c := runAcking(t, newAPI(f, botTok, appTok), func(*socketmode.Request) bool { return true })
	c.next(t, socketmode.EventTypeHello, nil)
	f.LoseAcks(1)

	in, err := f.InjectMessage(channel, user, "ack lost once", "")
	if err != nil {
		t.Fatal(err)
	}
	first := c.next(t, socketmode.EventTypeEventsAPI, envelopeOf(""))
	again := c.next(t, socketmode.EventTypeEventsAPI, envelopeOf(first.Request.EnvelopeID))
	if again.Request.RetryAttempt != 1 || again.Request.RetryReason != "timeout" {
		t.Fatalf("redelivery %+v", again.Request)
	}
	snap := waitFor(t, f, "the second ack", acked(in.TS))
	if e, _ := envelopeFor(snap, appTok, in.TS); e.Deliveries != 2 || e.GaveUp {
		t.Fatalf("envelope %+v", e)
	}
}

// drain returns the events a client has received and not yet read.
func drain(c *client) []socketmode.Event {
	var out []socketmode.Event
	for {
		select {
		case e := <-c.evs:
			out = append(out, e)
		default:
			return out
		}
	}
}

// Close stops the ack timers: a server closed with envelopes in flight
// returns at once and sends nothing more.
func TestCloseStopsAckTimers(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{AppTokens: []string{appTok}, Channels: []string{channel}, AckTimeout: time.Hour})
	c := runAcking(t, newAPI(f, botTok, appTok), func(*socketmode.Request) bool { return false })
	c.next(t, socketmode.EventTypeHello, nil)
	for range 5 {
		if _, err := f.InjectMessage(channel, user, "in flight", ""); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, f, "deliveries", func(sn fakeslack.Snapshot) bool {
		for _, e := range sn.Envelopes {
			if e.Deliveries == 0 {
				return false
			}
		}
		return len(sn.Envelopes) == 5
	})
	began := time.Now()
	f.Close()
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("Close took %s", took)
	}
}
