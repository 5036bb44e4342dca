package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/internal/backoff"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/spec"
)

// TransportOptions tunes a Transport; zero values take defaults.
type TransportOptions struct {
	Log logr.Logger
	// Inbound receives the messages and decides the clicks (nil: every
	// message is ignored and every click unknown); its Receive and Decide
	// return once what they land is durable.
	Inbound Receiver
	// StateDir keeps the offset (OffsetFile); "" keeps it in memory.
	StateDir string
	// PollTimeout is the long poll's timeout (default PollTimeout).
	PollTimeout time.Duration
	// MaxBackoff caps the wait between failed polls (default 30 s).
	MaxBackoff time.Duration
}

// Receiver is the inbound side as the transport hands it messages and
// clicks (*chat.InboundPort).
type Receiver interface {
	Receive(ctx context.Context, ev inbound.Event) (inbound.Outcome, error)
	Decide(ctx context.Context, c inbound.Click) (inbound.Verdict, error)
}

// Transport long-polls getUpdates and hands each message to the inbound
// side, and each click to be decided, confirming an update to the
// service only once it landed.
type Transport struct {
	cfg    *spec.TelegramConfig
	opts   TransportOptions
	offset *offsetStore
	top    *chatTop
}

var _ chat.Transport = (*Transport)(nil)

// NewTransport returns the transport for cfg.
func NewTransport(cfg *spec.TelegramConfig, opts TransportOptions) *Transport {
	if opts.PollTimeout <= 0 {
		opts.PollTimeout = PollTimeout
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.Log.GetSink() == nil {
		opts.Log = logr.Discard()
	}
	chat := ""
	if cfg != nil {
		chat = cfg.ChatID
	}
	return &Transport{cfg: cfg, opts: opts, offset: newOffsetStore(opts.StateDir), top: newChatTop(chat, opts.StateDir)}
}

// Run implements chat.Transport: getMe, then long polls until ctx ends.
// Healthy means the last poll came back within its timeout plus a
// margin; a 409 is TokenInUse or WebhookSet (Degraded, never healthy,
// retried with back-off); a refused token is terminal.
func (t *Transport) Run(ctx context.Context, report func(chat.Health)) error {
	if t.cfg == nil || t.cfg.BotToken.IsZero() {
		return &chat.TerminalError{Reason: daemonproto.ReasonInvalidCredentials, Message: "telegram.botToken is empty"}
	}
	token := t.cfg.BotToken.Reveal()
	api, err := newClient(t.cfg, t.opts.PollTimeout)
	if err != nil {
		return &chat.TerminalError{Reason: daemonproto.ReasonInvalidCredentials, Message: err.Error()}
	}
	hc := &http.Client{Timeout: t.opts.PollTimeout + pollMargin}
	base := apiURL(t.cfg)
	self := botID(token)
	answer := func(ctx context.Context, id, text string, alert bool) error {
		ctx, cancel := context.WithTimeout(ctx, answerTimeout)
		defer cancel()
		_, err := api.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{CallbackQueryID: id, Text: text, ShowAlert: alert})
		return scrub(err, token)
	}
	b := backoff.New(500*time.Millisecond, t.opts.MaxBackoff)
	wait := time.Duration(0)
	checked := false
	// answered: a poll came back since the last failure. Until one has,
	// polls do not wait (timeout 0), so health is known at once: a 409
	// is never preceded by a Ready, and a working poll is not Ready only
	// after its whole long wait.
	answered := false
	for {
		if wait > 0 && !sleepCtx(ctx, wait) {
			return nil
		}
		if !checked {
			_, err := api.GetMe(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if terminal := refusedToken(err); terminal != nil {
					return terminal
				}
				report(chat.Health{Err: "telegram getMe: " + scrub(err, token).Error()})
				wait = b.Next()
				continue
			}
			checked = true
		}
		offset, err := t.offset.load()
		if err != nil {
			report(chat.Health{Err: err.Error()})
			wait = b.Next()
			continue
		}
		timeout := t.opts.PollTimeout
		if !answered {
			timeout = 0
		}
		ups, err := getUpdates(ctx, hc, base, token, offset, timeout)
		if ctx.Err() != nil {
			return nil
		}
		answered = err == nil
		if err != nil {
			h, terminal, retryAfter := pollFailure(err)
			if terminal != nil {
				return terminal
			}
			report(h)
			wait = max(b.Next(), retryAfter)
			continue
		}
		report(chat.Health{Healthy: true})
		wait = 0
		b.Reset()
		if err := t.land(ctx, ups, self, answer); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			t.opts.Log.Error(err, "landing telegram updates; the service sends them again")
			wait = b.Next()
		}
	}
}

// answerTimeout bounds one answerCallbackQuery: the clicker waits for
// it, and the service takes it only for a short while after the click.
const answerTimeout = 5 * time.Second

// answerFunc answers a callback query (answerCallbackQuery).
type answerFunc func(ctx context.Context, id, text string, alert bool) error

// land hands each update to the inbound side, in order, and then saves
// the offset past the last one handed on; the next poll sends it, which
// is when the service forgets them. An update whose landing (or a
// click's decision) fails stops the batch: the offset saved confirms
// only the ones before it.
func (t *Transport) land(ctx context.Context, ups []models.Update, self int64, answer answerFunc) error {
	if len(ups) == 0 {
		return nil
	}
	next := ups[0].ID
	var failed error
	handled := 0
	for _, u := range ups {
		if err := t.handle(ctx, u, self, answer); err != nil {
			failed = fmt.Errorf("update %d: %w", u.ID, err)
			break
		}
		next = u.ID + 1
		handled++
	}
	if next > ups[0].ID {
		// The chat's top before the offset: confirmed, these updates
		// are not sent again, and the top they prove would be lost.
		if err := t.top.save(ups[:handled]); err != nil {
			return errors.Join(failed, err)
		}
		if err := t.offset.save(next); err != nil {
			return errors.Join(failed, err)
		}
	}
	return failed
}

// handle lands one update: a message of the chat, or a click.
func (t *Transport) handle(ctx context.Context, u models.Update, self int64, answer answerFunc) error {
	if u.CallbackQuery != nil {
		return t.click(ctx, u.CallbackQuery, answer)
	}
	if ev, ok := eventOf(u, t.cfg.ChatID, self); ok {
		_, err := t.receive(ctx, ev)
		return err
	}
	return nil
}

// click has a callback query decided and answers the clicker as the
// verdict says. Its invariant, with land's: the update is confirmed only
// after Decide returned (what it decided is durable) and the answer was
// tried. A Decide that fails is not answered and its update not
// confirmed, so the service sends it again and it is decided as it would
// have been. A failed answer is not tried again: the query is short-
// lived, and what it answers is durable already.
func (t *Transport) click(ctx context.Context, q *models.CallbackQuery, answer answerFunc) error {
	v := inbound.Verdict{Kind: inbound.Unknown}
	if c, ours := clickOf(q, t.cfg.ChatID, time.Now()); ours && t.opts.Inbound != nil {
		var err error
		if v, err = t.opts.Inbound.Decide(ctx, c); err != nil {
			return fmt.Errorf("deciding callback query %s: %w", q.ID, err)
		}
	}
	text, alert := clickAnswer(v)
	if err := answer(ctx, q.ID, text, alert); err != nil && ctx.Err() == nil {
		// Routine after a restart (the query was too old by then): the
		// clicker saw no answer, what was decided is durable all the same.
		t.opts.Log.Info("a telegram callback query was not answered; not tried again", "query", q.ID, "verdict", v.Kind.String(), "err", err.Error())
	}
	return nil
}

func (t *Transport) receive(ctx context.Context, ev inbound.Event) (inbound.Outcome, error) {
	if t.opts.Inbound == nil {
		return inbound.Ignored, nil
	}
	return t.opts.Inbound.Receive(ctx, ev)
}

// pollFailure says what a failed poll means: the health to report (a
// 409 names its reason, TokenInUse or WebhookSet: Degraded, never Ready,
// polled again with back-off), a terminal error, and the wait the
// service asked for.
func pollFailure(err error) (chat.Health, *chat.TerminalError, time.Duration) {
	var ae *apiError
	if !errors.As(err, &ae) {
		return chat.Health{Err: "telegram getUpdates: " + err.Error()}, nil, 0
	}
	switch {
	case ae.Code == http.StatusUnauthorized || ae.Code == http.StatusNotFound:
		return chat.Health{}, &chat.TerminalError{Reason: daemonproto.ReasonInvalidCredentials,
			Message: "telegram refused the bot token (botToken): " + ae.Description + "; create a new one with BotFather"}, 0
	case ae.Code == http.StatusConflict && strings.Contains(ae.Description, descWebhook):
		return chat.Health{Reason: daemonproto.ReasonWebhookSet,
			Err: "a webhook is set for this bot, so it cannot poll; remove it with deleteWebhook (the daemon never does)"}, nil, 0
	case ae.Code == http.StatusConflict:
		return chat.Health{Reason: daemonproto.ReasonTokenInUse,
			Err: "another program polls this bot's updates (getUpdates); stop it, or give this daemon a bot of its own"}, nil, 0
	case ae.Code == http.StatusTooManyRequests:
		return chat.Health{Err: "telegram getUpdates: " + ae.Error()}, nil, time.Duration(ae.RetryAfter) * time.Second
	}
	return chat.Health{Err: "telegram getUpdates: " + ae.Error()}, nil, 0
}

// refusedToken is the terminal error for a getMe the service refused the
// token for.
func refusedToken(err error) *chat.TerminalError {
	e := classify(err)
	if e.Code == "401" || e.Code == "404" {
		return &chat.TerminalError{Reason: daemonproto.ReasonInvalidCredentials, Message: "telegram refused the bot token (botToken); create a new one with BotFather"}
	}
	return nil
}

// botID is the bot's user id: the digits before the token's colon.
func botID(token string) int64 {
	id, _ := strconv.ParseInt(strings.SplitN(token, ":", 2)[0], 10, 64)
	return id
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
