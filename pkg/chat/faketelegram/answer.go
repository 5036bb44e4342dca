package faketelegram

import (
	"net/http"
	"strconv"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// answer is a method's answer: the HTTP status is the error_code, as the
// service sends it.
type answer struct {
	status int
	body   map[string]any
}

func ok(result any) *answer {
	return &answer{status: http.StatusOK, body: map[string]any{"ok": true, "result": result}}
}

func failBody(code int, description string) map[string]any {
	return map[string]any{"ok": false, "error_code": code, "description": description}
}

// badRequest is the service's 400, its description prefixed as the
// service prefixes it.
func badRequest(description string) *answer {
	return &answer{status: http.StatusBadRequest, body: failBody(http.StatusBadRequest, "Bad Request: "+description)}
}

func unauthorized(description string) *answer {
	return &answer{status: http.StatusUnauthorized, body: failBody(http.StatusUnauthorized, description)}
}

func conflict(description string) *answer {
	return &answer{status: http.StatusConflict, body: failBody(http.StatusConflict, description)}
}

func notFound(description string) *answer {
	return &answer{status: http.StatusNotFound, body: failBody(http.StatusNotFound, description)}
}

// tooMany is the service's 429: the wait in whole seconds in the
// description, parameters.retry_after and a Retry-After header.
func tooMany(secs int) *answer {
	b := failBody(http.StatusTooManyRequests, "Too Many Requests: retry after "+strconv.Itoa(secs))
	b["parameters"] = map[string]any{"retry_after": secs}
	return &answer{status: http.StatusTooManyRequests, body: b}
}

// The 409s of getUpdates, in the service's words.
const (
	conflictOtherPoll = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
	conflictWebhook   = "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
	conflictSetHook   = "Conflict: terminated by setWebhook request"
)

func writeAnswer(w http.ResponseWriter, a *answer) {
	w.Header().Set("Content-Type", "application/json")
	if p, _ := a.body["parameters"].(map[string]any); p != nil {
		if secs, ok := p["retry_after"].(int); ok {
			w.Header().Set("Retry-After", strconv.Itoa(secs))
		}
	}
	fakeserver.WriteJSON(w, a.status, a.body)
}
