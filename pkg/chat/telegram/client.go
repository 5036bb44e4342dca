package telegram

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/spec"
)

// defaultAPIURL is the Bot API's own address.
const defaultAPIURL = "https://api.telegram.org"

// newClient is the Bot API client for cfg, each call bounded by timeout.
// It calls nothing at creation (no getMe: the transport checks the token
// and says what it found) and retries nothing: a request that may have
// been accepted is never sent again by the client.
func newClient(cfg *spec.TelegramConfig, timeout time.Duration) (*tgbot.Bot, error) {
	return newClientWith(cfg, timeout, &http.Client{Timeout: timeout})
}

// newClientWith is newClient over hc: uploads take a client without an
// overall timeout, each bounded by its context instead (uploadTimeout).
func newClientWith(cfg *spec.TelegramConfig, timeout time.Duration, hc *http.Client) (*tgbot.Bot, error) {
	if cfg == nil {
		return nil, errors.New("telegram: no telegram configuration")
	}
	if cfg.BotToken.IsZero() {
		return nil, errors.New("telegram: telegram.botToken is empty")
	}
	b, err := tgbot.New(cfg.BotToken.Reveal(),
		tgbot.WithServerURL(apiURL(cfg)),
		tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(timeout, hc),
		tgbot.WithErrorsHandler(func(error) {}),
	)
	if err != nil {
		return nil, fmt.Errorf("telegram client: %w", scrub(err, cfg.BotToken.Reveal()))
	}
	return b, nil
}

func apiURL(cfg *spec.TelegramConfig) string {
	if cfg.APIURL == "" {
		return defaultAPIURL
	}
	return strings.TrimRight(cfg.APIURL, "/")
}

// scrub keeps the token out of an error's text: the token is part of
// every request's URL.
func scrub(err error, token string) error {
	if err == nil || token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return &scrubbed{msg: strings.ReplaceAll(err.Error(), token, "<token>"), err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }
