package chat

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/spec"
)

// SlackOptions tunes the Slack transport; zero values take defaults.
type SlackOptions struct {
	Log     logr.Logger
	Timeout time.Duration // one Web API call
}

type slackTransport struct {
	cfg  *spec.SlackConfig
	opts SlackOptions
}

// NewSlack returns a transport for one Slack app over Socket Mode.
func NewSlack(cfg *spec.SlackConfig, opts SlackOptions) Transport {
	if opts.Timeout == 0 {
		opts.Timeout = 15 * time.Second
	}
	return &slackTransport{cfg: cfg, opts: opts}
}

// Slack errors after which retrying with the same tokens cannot succeed.
var slackTerminalErrors = map[string]bool{
	"invalid_auth": true, "not_authed": true, "account_inactive": true,
	"token_revoked": true, "token_expired": true, "not_allowed_token_type": true,
}

func (t *slackTransport) Run(ctx context.Context, report func(Health)) error {
	options := []slack.Option{
		slack.OptionAppLevelToken(t.cfg.AppToken.Reveal()),
		slack.OptionHTTPClient(&http.Client{Timeout: t.opts.Timeout}),
	}
	if t.cfg.APIURL != "" {
		options = append(options, slack.OptionAPIURL(slackAPIBase(t.cfg.APIURL)))
	}
	api := slack.New(t.cfg.BotToken.Reveal(), options...)
	h := &healthReporter{report: report}
	b := newBackoff(500*time.Millisecond, 30*time.Second)
	for {
		err := t.session(ctx, api, h, b)
		if ctx.Err() != nil {
			return nil
		}
		if te := slackTerminal(err); te != nil {
			return te
		}
		h.set(Health{Err: err.Error()})
		t.opts.Log.Info("slack connection failed; retrying", "err", err.Error())
		if b.wait(ctx) != nil {
			return nil
		}
	}
}

// session checks the bot token, then runs one socketmode client until it
// fails or ctx is done. socketmode reconnects by itself when Slack asks it to
// or pings stop; it returns only when a reconnect fails.
func (t *slackTransport) session(ctx context.Context, api *slack.Client, h *healthReporter, b *backoff) error {
	if _, err := api.AuthTestContext(ctx); err != nil {
		return &slackTokenError{which: "bot token (botToken)", err: fmt.Errorf("checking the bot token: %w", err)}
	}
	client := socketmode.New(api)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- client.RunContext(runCtx) }()
	for {
		select {
		case err := <-errc:
			if err == nil {
				return errors.New("socket mode stopped")
			}
			// Socket mode opens its connection with the app-level token: a
			// refusal it returns is that token's.
			return &slackTokenError{which: "app token (appToken)", err: err}
		case ev := <-client.Events:
			switch ev.Type {
			case socketmode.EventTypeConnecting:
				h.set(Health{Err: "connecting to socket mode"})
			case socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError, socketmode.EventTypeErrorWriteFailed:
				h.set(Health{Err: fmt.Sprintf("socket mode: %s", ev.Type)})
			case socketmode.EventTypeInvalidAuth:
				cancel()
				<-errc
				return &TerminalError{Reason: daemonproto.ReasonInvalidCredentials, Message: "slack rejected the app token (appToken)"}
			case socketmode.EventTypeHello:
				b.reset()
				h.set(Health{Healthy: true})
			case socketmode.EventTypeDisconnect:
				h.set(Health{Err: "slack asked to reconnect"})
			case socketmode.EventTypeEventsAPI:
				// Acknowledge at once, or Slack redelivers; AckCtx because Ack
				// blocks on a full queue while disconnected.
				if ev.Request != nil {
					_ = client.AckCtx(runCtx, ev.Request.EnvelopeID, nil)
				}
			}
		}
	}
}

// slackTokenError marks an error with the token the request carried, so a
// refusal names which of the two Slack tokens to fix.
type slackTokenError struct {
	which string
	err   error
}

func (e *slackTokenError) Error() string { return e.err.Error() }
func (e *slackTokenError) Unwrap() error { return e.err }

func slackTerminal(err error) *TerminalError {
	var te *TerminalError
	if errors.As(err, &te) {
		return te
	}
	which := "a token"
	var tok *slackTokenError
	if errors.As(err, &tok) {
		which = "the " + tok.which
	}
	refused := func(code string) *TerminalError {
		return &TerminalError{Reason: daemonproto.ReasonInvalidCredentials, Message: "slack rejected " + which + ": " + code}
	}
	var se slack.SlackErrorResponse
	if errors.As(err, &se) && slackTerminalErrors[se.Err] {
		return refused(se.Err)
	}
	var sep *slack.SlackErrorResponse
	if errors.As(err, &sep) && slackTerminalErrors[sep.Err] {
		return refused(sep.Err)
	}
	// Not every slack-go path wraps its error response; the code is in the text.
	for code := range slackTerminalErrors {
		if err != nil && strings.Contains(err.Error(), code) {
			return refused(code)
		}
	}
	return nil
}

// slackAPIBase is the Web API base slack-go joins method names onto (so it
// ends in "/api/") for an apiURL given with or without its "/api" part:
// "http://host:port" and "http://host:port/api/" name the same API.
func slackAPIBase(apiURL string) string {
	base := strings.TrimRight(apiURL, "/")
	if !strings.HasSuffix(base, "/api") {
		base += "/api"
	}
	return base + "/"
}
