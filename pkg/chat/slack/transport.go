package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/internal/backoff"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/spec"
)

// TransportOptions tunes the Slack transport; zero values take defaults.
type TransportOptions struct {
	Log     logr.Logger
	Timeout time.Duration // one Web API call
	// Inbound, when set, receives the message events of the configured
	// channel and hears of each hello, after which missed replies are
	// read from history; it decides the clicks of ask buttons.
	Inbound *chat.InboundPort
}

type transport struct {
	cfg  *spec.SlackConfig
	opts TransportOptions
}

// NewTransport returns a transport for one Slack app over Socket Mode.
func NewTransport(cfg *spec.SlackConfig, opts TransportOptions) chat.Transport {
	if opts.Timeout == 0 {
		opts.Timeout = 15 * time.Second
	}
	return &transport{cfg: cfg, opts: opts}
}

// Slack errors after which retrying with the same tokens cannot succeed.
var terminalErrors = map[string]bool{
	"invalid_auth": true, "not_authed": true, "account_inactive": true,
	"token_revoked": true, "token_expired": true, "not_allowed_token_type": true,
}

func (t *transport) Run(ctx context.Context, report func(chat.Health)) error {
	options := []slackapi.Option{
		slackapi.OptionAppLevelToken(t.cfg.AppToken.Reveal()),
		slackapi.OptionHTTPClient(&http.Client{Timeout: t.opts.Timeout}),
	}
	if t.cfg.APIURL != "" {
		options = append(options, slackapi.OptionAPIURL(apiBase(t.cfg.APIURL)))
	}
	api := slackapi.New(t.cfg.BotToken.Reveal(), options...)
	b := backoff.New(500*time.Millisecond, 30*time.Second)
	for {
		err := t.session(ctx, api, report, b)
		if ctx.Err() != nil {
			return nil
		}
		if te := terminal(err); te != nil {
			return te
		}
		report(chat.Health{Err: err.Error()})
		t.opts.Log.Info("slack connection failed; retrying", "err", err.Error())
		if b.Wait(ctx) != nil {
			return nil
		}
	}
}

// session checks the bot token, then runs one socketmode client until it
// fails or ctx is done. socketmode reconnects by itself when Slack asks it to
// or pings stop; it returns only when a reconnect fails.
func (t *transport) session(ctx context.Context, api *slackapi.Client, report func(chat.Health), b *backoff.Backoff) error {
	me, err := api.AuthTestContext(ctx)
	if err != nil {
		return &tokenError{which: "bot token (botToken)", err: fmt.Errorf("checking the bot token: %w", err)}
	}
	client := socketmode.New(api)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- client.RunContext(runCtx) }()
	healthy := false // since the last hello
	for {
		select {
		case err := <-errc:
			if err == nil {
				return errors.New("socket mode stopped")
			}
			// Socket mode opens its connection with the app-level token: a
			// refusal it returns is that token's.
			return &tokenError{which: "app token (appToken)", err: err}
		case ev := <-client.Events:
			switch ev.Type {
			case socketmode.EventTypeConnecting:
				healthy = false
				report(chat.Health{Err: "connecting to socket mode"})
			case socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError, socketmode.EventTypeErrorWriteFailed:
				healthy = false
				report(chat.Health{Err: fmt.Sprintf("socket mode: %s", ev.Type)})
			case socketmode.EventTypeInvalidAuth:
				cancel()
				<-errc
				return &chat.TerminalError{Reason: daemonproto.ReasonInvalidCredentials, Message: "slack rejected the app token (appToken)"}
			case socketmode.EventTypeHello:
				b.Reset()
				n := 0
				if ev.Request != nil {
					n = ev.Request.NumConnections
				}
				h := helloHealth(n)
				if h.Reason != "" {
					t.opts.Log.Info("another consumer of the app token", "reason", h.Reason, "message", h.Err)
				}
				report(h)
				// Under TokenInUse the cause of missed replies is known
				// (Slack hands them to the other connection): a new socket
				// would not hear them either.
				healthy = h.Healthy
				t.opts.Inbound.Connected()
			case socketmode.EventTypeDisconnect:
				healthy = false
				report(chat.Health{Err: "slack asked to reconnect"})
			case socketmode.EventTypeEventsAPI:
				t.eventsAPI(runCtx, client, ev, me.UserID)
			case socketmode.EventTypeInteractive:
				t.interactive(runCtx, client, api, ev)
			}
		case why := <-t.opts.Inbound.Deaf():
			if !healthy {
				continue // reconnecting already
			}
			// Slack has no way to ask a socket what it holds back: a new
			// one is the cure. The sweep already landed what was missed.
			t.opts.Log.Info("reconnecting socket mode: the connection looks healthy but delivers nothing", "why", why)
			cancel()
			<-errc
			return fmt.Errorf("reconnecting: %s", why)
		}
	}
}

// ackWithin is how long after its arrival an envelope may still be
// acknowledged: Slack redelivers one not acked within 3 s, and the margin
// covers the ack's way back.
const ackWithin = 2500 * time.Millisecond

// eventsAPI handles one events_api envelope. A message event is acked
// only once the inbound side has it for good (landed durably, a
// duplicate, or ignored), and only within ackWithin: one that could not
// be decided in time is left unacked, and Slack's redelivery (or the next
// history read) brings it again. Anything else is acked at once. Each
// message is decided in its own goroutine, so a slow disk never holds
// up the socket.
func (t *transport) eventsAPI(ctx context.Context, client *socketmode.Client, ev socketmode.Event, self string) {
	if ev.Request == nil {
		return
	}
	id := ev.Request.EnvelopeID
	ack := func() {
		// AckCtx because Ack blocks on a full queue while disconnected.
		_ = client.AckCtx(ctx, id, nil)
	}
	api, ok := ev.Data.(slackevents.EventsAPIEvent)
	msg, isMsg := api.InnerEvent.Data.(*slackevents.MessageEvent)
	if !ok || !isMsg || t.opts.Inbound == nil {
		ack()
		return
	}
	deadline := time.Now().Add(ackWithin)
	go func() {
		ctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		if _, err := t.opts.Inbound.Receive(ctx, EventOf(msg, t.cfg.ChannelID, self)); err != nil {
			t.opts.Log.Error(err, "an inbound message did not land in time; left unacknowledged for Slack to deliver again, and tried again on its own", "message", msg.TimeStamp)
			return
		}
		ack()
	}()
}

// tokenError marks an error with the token the request carried, so a
// refusal names which of the two Slack tokens to fix.
type tokenError struct {
	which string
	err   error
}

func (e *tokenError) Error() string { return e.err.Error() }
func (e *tokenError) Unwrap() error { return e.err }

func terminal(err error) *chat.TerminalError {
	var te *chat.TerminalError
	if errors.As(err, &te) {
		return te
	}
	which := "a token"
	var tok *tokenError
	if errors.As(err, &tok) {
		which = "the " + tok.which
	}
	refused := func(code string) *chat.TerminalError {
		return &chat.TerminalError{Reason: daemonproto.ReasonInvalidCredentials, Message: "slack rejected " + which + ": " + code}
	}
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) && terminalErrors[se.Err] {
		return refused(se.Err)
	}
	var sep *slackapi.SlackErrorResponse
	if errors.As(err, &sep) && terminalErrors[sep.Err] {
		return refused(sep.Err)
	}
	// Not every slack-go path wraps its error response; the code is in the text.
	for code := range terminalErrors {
		if err != nil && strings.Contains(err.Error(), code) {
			return refused(code)
		}
	}
	return nil
}
