package fakeslack_test

import (
	"context"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

const (
	waitLimit = 10 * time.Second
	botTok    = "xoxb-1"
	appTok    = "xapp-2"
	channel   = "C456"
	user      = "U0HUMAN01"
)

func start(t *testing.T, opts fakeslack.Options) *fakeslack.Server {
	t.Helper()
	opts.Logf = t.Logf
	if opts.PingInterval == 0 {
		opts.PingInterval = 200 * time.Millisecond
	}
	f, err := fakeslack.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func newAPI(f *fakeslack.Server, bot, app string) *slack.Client {
	return slack.New(bot, slack.OptionAPIURL(f.URL()+"/api/"), slack.OptionAppLevelToken(app))
}

// client is a running socketmode client whose events a test reads from evs.
type client struct {
	sm     *socketmode.Client
	evs    chan socketmode.Event
	done   chan error // RunContext's result
	cancel context.CancelFunc
}

// run starts RunContext and drains Events, acking every events_api request
// as an application must.
func run(t *testing.T, api *slack.Client) *client {
	t.Helper()
	return runAcking(t, api, func(*socketmode.Request) bool { return true })
}

// runAcking is run with the events_api requests to ack chosen by ack,
// which runs before the event is passed on.
func runAcking(t *testing.T, api *slack.Client, ack func(*socketmode.Request) bool) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{
		// A ping window ten times the fake's ping interval: a stalled test
		// process must not look like a dead socket.
		sm:     socketmode.New(api, socketmode.OptionPingInterval(2*time.Second)),
		evs:    make(chan socketmode.Event, 1000),
		done:   make(chan error, 1),
		cancel: cancel,
	}
	go func() { c.done <- c.sm.RunContext(ctx) }()
	go func() {
		for {
			select {
			case e := <-c.sm.Events:
				if e.Type == socketmode.EventTypeEventsAPI && e.Request != nil && ack(e.Request) {
					_ = c.sm.AckCtx(ctx, e.Request.EnvelopeID, nil)
				}
				select {
				case c.evs <- e:
				default:
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(cancel)
	return c
}

// next waits for the first event of type typ that matches, skipping others.
func (c *client) next(t *testing.T, typ socketmode.EventType, match func(socketmode.Event) bool) socketmode.Event {
	t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case e := <-c.evs:
			if e.Type == typ && (match == nil || match(e)) {
				return e
			}
		case err := <-c.done:
			t.Fatalf("RunContext returned %v while waiting for %s", err, typ)
		case <-timeout:
			t.Fatalf("timed out waiting for %s", typ)
		}
	}
}

// stop cancels the client and waits for RunContext to return.
func (c *client) stop(t *testing.T) error {
	t.Helper()
	c.cancel()
	select {
	case err := <-c.done:
		return err
	case <-time.After(waitLimit):
		t.Fatal("RunContext did not return")
		return nil
	}
}

func waitFor(t *testing.T, f *fakeslack.Server, what string, cond func(fakeslack.Snapshot) bool) fakeslack.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	snap, err := f.WaitFor(ctx, cond)
	if err != nil {
		t.Fatalf("waiting for %s: %v; apps %+v", what, err, snap.Apps)
	}
	return snap
}

func acked(ts string) func(fakeslack.Snapshot) bool {
	return func(sn fakeslack.Snapshot) bool {
		for _, e := range sn.Envelopes {
			if e.MessageTS == ts && e.Acked {
				return true
			}
		}
		return false
	}
}
