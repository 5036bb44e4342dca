package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/go-telegram/bot/models"
)

// PollTimeout is getUpdates' long-poll timeout (DESIGN: 25 s).
const PollTimeout = 25 * time.Second

// pollMargin is how much longer than PollTimeout a poll may take before
// the link counts as dead.
const pollMargin = 10 * time.Second

// maxUpdatesBody caps a getUpdates answer (100 updates of at most a few
// KiB each).
const maxUpdatesBody = 16 << 20

// allowedUpdates are the updates the daemon reads; the service keeps this
// list for the token until it is changed.
var allowedUpdates = []string{"message", "edited_message", "callback_query"}

// apiError is the service's refusal of a call.
type apiError struct {
	Code        int
	Description string
	RetryAfter  int
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Description) }

// answer is the Bot API's envelope.
type answer struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// decodeUpdates reads a getUpdates answer: the updates, in the order the
// service sent them, or the service's refusal as an *apiError. The
// client library polls by itself and confirms an update before its
// handler ran; the daemon must confirm only after landing, so it makes
// this one call itself.
func decodeUpdates(body []byte) ([]models.Update, error) {
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("getUpdates answer is not JSON (%d bytes)", len(body))
	}
	if !a.OK {
		return nil, &apiError{Code: a.ErrorCode, Description: a.Description, RetryAfter: a.Parameters.RetryAfter}
	}
	var ups []models.Update
	if err := json.Unmarshal(a.Result, &ups); err != nil {
		return nil, fmt.Errorf("getUpdates result is not a list of updates: %w", err)
	}
	for i := 1; i < len(ups); i++ {
		if ups[i].ID <= ups[i-1].ID {
			return nil, fmt.Errorf("getUpdates answered update %d after %d", ups[i].ID, ups[i-1].ID)
		}
	}
	return ups, nil
}

// getUpdates is one long poll from offset.
func getUpdates(ctx context.Context, hc *http.Client, base, token string, offset int64, timeout time.Duration) ([]models.Update, error) {
	body, _ := json.Marshal(map[string]any{"offset": offset, "timeout": int(timeout / time.Second), "allowed_updates": allowedUpdates})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/bot"+token+"/getUpdates", bytes.NewReader(body))
	if err != nil {
		return nil, scrub(fmt.Errorf("getUpdates: %w", err), token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, scrub(fmt.Errorf("getUpdates: %w", err), token)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxUpdatesBody))
	if err != nil {
		return nil, scrub(fmt.Errorf("getUpdates: reading the answer: %w", err), token)
	}
	return decodeUpdates(data)
}
