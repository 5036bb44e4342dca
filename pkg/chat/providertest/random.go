package providertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// The randomized run's size: randomMessages over randomSessions, published
// in batches of randomBatch (the next at a restart that finds less than
// half a batch left), while the relay's
// process is SIGKILLed every 100 to 400 ms and 10 % of the posts are
// accepted then failed (a 502 or a cut connection, half each).
//
// The run is randomMessages, about 40 s per provider on this
// project's 2-core machine since the kill clock starts once the child's
// relay has settled; hack/test.sh runs it whole. -short runs
// randomMessagesShort (the same sessions, kill and fault rates, fewer
// messages). RELAY_RANDOM_NOKILL=1 runs it without kills, everything
// published at once: the relay's throughput, to compare with.
const (
	randomMessages      = 2000
	randomMessagesShort = 100
	randomSessions      = 20
	randomBatch         = 100
	acceptFailRate      = 0.10
)

// randomRunMessages: each session opens with a title, posts, one message
// in five a long text of two parts, and closes. Every text holds its id,
// so no two parts of a session look alike.
func randomRunMessages(limit, total int) []bus.Message {
	perSession := total / randomSessions
	long := strings.Repeat("filler words for a long text ", limit/28+1)[:limit*3/4]
	msgs := make([]bus.Message, 0, total)
	for i := range total {
		k, s := i/randomSessions, fmt.Sprintf("sess-%02d", i%randomSessions)
		m := bus.Message{ID: fmt.Sprintf("r%05d", i), Session: s, Event: bus.EventMessage}
		switch {
		case k == 0:
			m.Event, m.Title, m.Text = bus.EventOpen, "Random "+s, "Opening "+m.ID+"."
		case k == perSession-1:
			m.Event, m.Text = bus.EventClose, "Closing "+m.ID+"."
		case k%5 == 2:
			m.Text = "Long " + m.ID + ".\n\n" + long + "\n\n" + long + " " + m.ID
		default:
			m.Text = "Message " + m.ID + " of " + s + "."
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// randomKills is the randomized run: the fake's store equals the outbox, each message
// once, in order per session, nothing left. The seed is logged; set
// RELAY_RANDOM_SEED to replay one (the kills land where time puts them,
// so a replay is close, not exact).
func randomKills(t *testing.T, s Subject, top string) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RELAY_RANDOM_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("RELAY_RANDOM_SEED: %v", err)
		}
	}
	t.Logf("seed %d (RELAY_RANDOM_SEED=%d replays it)", seed, seed)
	kills := rand.New(rand.NewPCG(seed, 1))
	faults := rand.New(rand.NewPCG(seed, 2))

	total, limit := randomMessages, 10*time.Minute
	switch {
	case testing.Short():
		total, limit = randomMessagesShort, 3*time.Minute
	case s.RandomRun != nil && os.Getenv("RELAY_RANDOM_FULL") != "1":
		total, limit = s.RandomRun.Messages, 5*time.Minute
		t.Logf("%d messages, not %d (RELAY_RANDOM_FULL=1 runs them all): %s", total, randomMessages, s.RandomRun.Why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	r := s.Start(t, 0)
	render := s.render(t)
	dir, d := newBus(t)
	msgs := randomRunMessages(render.Limit, total)
	watch := watchOutbox(t, d)

	// Accept-then-fail for about one post in ten: after each post seen,
	// the next one is armed with that chance.
	fctx, stopFaults := context.WithCancel(ctx)
	var armed atomic.Int64
	faultsDone := make(chan struct{})
	go func() {
		defer close(faultsDone)
		n := 0
		for {
			var err error
			if n, err = r.WaitPosts(fctx, n); err != nil {
				return
			}
			if faults.Float64() < acceptFailRate {
				r.AcceptThenFail(faults.IntN(2) == 0)
				armed.Add(1)
			}
		}
	}()

	start := time.Now()
	published, restarts := 0, 0
	for {
		// A producer that keeps ahead of the relay by a batch: the backlog
		// each restart reads stays small (a start reads the whole outbox).
		if pending, _ := bus.ListOutbox(d.Outbox); published < len(msgs) && len(pending) < randomBatch/2 {
			next := min(published+randomBatch, len(msgs))
			if os.Getenv("RELAY_RANDOM_NOKILL") != "" {
				next = len(msgs)
			}
			publish(t, d, msgs[published:next])
			published = next
		}
		c := startChild(t, top, dir, childEnvOf(r)...)
		if _, err := c.waitLine(ctx, "STARTED"); err != nil {
			t.Fatal(err)
		}
		finished, err := runUntilKill(ctx, c, watch, killEvery(kills), published == len(msgs))
		if err != nil {
			t.Fatalf("after %d restarts: %v (%s)", restarts, err, c.tail())
		}
		c.kill(t)
		if finished {
			break
		}
		restarts++
		if testing.Verbose() && restarts%100 == 0 {
			names, _ := bus.ListOutbox(d.Outbox)
			t.Logf("%s: %d restarts, %d published, %d in the outbox, %d at the fake", time.Since(start).Round(time.Millisecond),
				restarts, published, len(names), r.Messages())
		}
	}
	stopFaults()
	<-faultsDone
	t.Logf("%d messages over %d sessions in %s, %d SIGKILLs, %d accept-then-fail armed",
		len(msgs), randomSessions, time.Since(start).Round(time.Millisecond), restarts, armed.Load())
	for _, b := range checkDelivered(s, r, render, d, msgs) {
		t.Error(b)
	}
}

// runUntilKill lets c run for d, or until the outbox is empty when all is
// published (finished); an error when c exits on its own or ctx ends.
func runUntilKill(ctx context.Context, c *relayChild, w *outboxWatch, d time.Duration, all bool) (bool, error) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		if all {
			empty, err := w.empty()
			if err != nil || empty {
				return empty, err
			}
		}
		select {
		case <-timer.C:
			return false, nil
		case <-w.changes:
		case <-c.exited:
			return false, fmt.Errorf("the child exited on its own (%s)", c.tail())
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

func killEvery(rng *rand.Rand) time.Duration {
	if os.Getenv("RELAY_RANDOM_NOKILL") != "" {
		return time.Hour
	}
	return time.Duration(100+rng.IntN(301)) * time.Millisecond
}
