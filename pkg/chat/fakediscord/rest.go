package fakediscord

import (
	"mime"
	"net/http"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// Discord's JSON error codes for the failures the fake reproduces.
const (
	codeUnknownChannel     = 10003
	codeUnknownMessage     = 10008
	codeWrongChannelType   = 50024
	codeEmptyMessage       = 50006
	codeInvalidFormBody    = 50035
	codeInvalidJSON        = 50109
	codeThreadExists       = 160004
	codeArchivedThread     = 50083
	codeNotAuthor          = 50005
	codeMissingPermissions = 50013
)

func (s *Server) routes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /gateway", s.serveGateway)
	m.HandleFunc("GET /gateway/", s.serveGateway) // discordgo appends a slash before the query
	m.HandleFunc("GET /api/{v}/gateway", s.getGateway)
	m.HandleFunc("GET /api/{v}/gateway/bot", s.authed(s.answer(s.getGatewayBot)))
	m.HandleFunc("GET /api/{v}/users/@me", s.authed(s.answer(getMe)))
	m.HandleFunc("GET /api/{v}/applications/@me", s.authed(s.answer(s.getApplication)))
	m.HandleFunc("GET /api/{v}/guilds/{gid}", s.authed(s.answer(s.getGuild)))
	m.HandleFunc("GET /api/{v}/guilds/{gid}/members/{uid}", s.authed(s.answer(s.getGuildMember)))
	m.HandleFunc("GET /api/{v}/channels/{cid}", s.authed(s.routeLimited(s.viewing(s.answer(s.getChannel)))))
	m.HandleFunc("PATCH /api/{v}/channels/{cid}", s.authed(s.routeLimited(s.answer(s.patchChannel))))
	m.HandleFunc("GET /api/{v}/channels/{cid}/messages", s.authed(s.routeLimited(s.answer(s.listMessages))))
	m.HandleFunc("POST /api/{v}/channels/{cid}/messages", s.authed(s.routeLimited(s.limited(s.answer(s.postMessage)))))
	m.HandleFunc("GET /api/{v}/channels/{cid}/messages/{mid}", s.authed(s.routeLimited(s.answer(s.getMessage))))
	m.HandleFunc("PATCH /api/{v}/channels/{cid}/messages/{mid}", s.authed(s.routeLimited(s.answer(s.patchMessage))))
	m.HandleFunc("PUT /api/{v}/channels/{cid}/messages/{mid}/reactions/{emoji}/@me", s.authed(s.routeLimited(s.answer(s.addReaction))))
	m.HandleFunc("POST /api/{v}/channels/{cid}/threads", s.authed(s.routeLimited(s.limited(s.answer(s.startThread)))))
	m.HandleFunc("POST /api/{v}/channels/{cid}/messages/{mid}/threads", s.authed(s.routeLimited(s.limited(s.answer(s.startMessageThread)))))
	m.HandleFunc("GET /attachments/{cid}/{aid}/{name}", s.serveAttachment)
	m.HandleFunc("POST /api/{v}/interactions/{iid}/{itoken}/callback", s.tokenless(s.answer(s.interactionCallback)))
	m.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, 0, "404: Not Found")
	})
	return m
}

type handler func(w http.ResponseWriter, r *http.Request, token string)

// answer writes what h returns once h has released the lock: JSON, no
// body for 204, a FailMode's failure (AcceptThenFail), or nothing at all
// for 0 (the client left while held: nobody is there to answer).
func (s *Server) answer(h func(r *http.Request, token string) (status int, body any)) handler {
	return func(w http.ResponseWriter, r *http.Request, token string) {
		status, body := h(r, token)
		mode, failed := body.(FailMode)
		switch {
		case failed:
			s.core.Fail(w, mode)
		case status == 0:
		case status == http.StatusNoContent:
			w.WriteHeader(status)
		default:
			fakeserver.WriteJSON(w, status, body)
		}
	}
}

// authed checks "Authorization: Bot <token>" as Discord does for bots.
func (s *Server) authed(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bot ")
		s.mu.Lock()
		ok = ok && s.tokenOKLocked(token)
		s.mu.Unlock()
		if !ok {
			writeError(w, http.StatusUnauthorized, 0, "401: Unauthorized")
			return
		}
		h(w, r, token)
	}
}

// tokenless serves a route that takes no bot token, as an interaction's
// callback, whose URL carries the interaction's own.
func (s *Server) tokenless(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { h(w, r, "") }
}

// limited serves an injected 429 before the handler, if one is pending.
func (s *Server) limited(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request, token string) {
		s.mu.Lock()
		after, hit := s.core.TakeRateLimitLocked()
		s.mu.Unlock()
		if !hit {
			h(w, r, token)
			return
		}
		s.logf("429 for %s %s, retry after %s", r.Method, r.URL.Path, after)
		rateHeaders(w, 5, 0, time.Now().Add(after), after, "fakediscord")
		tooMany(w, after)
	}
}

// getGateway needs no token, as on Discord.
func (s *Server) getGateway(w http.ResponseWriter, _ *http.Request) {
	fakeserver.WriteJSON(w, http.StatusOK, map[string]string{"url": s.GatewayURL()})
}

func getMe(_ *http.Request, token string) (int, any) { return http.StatusOK, botUser(token) }

func (s *Server) getChannel(r *http.Request, _ string) (int, any) {
	id := r.PathValue("cid")
	s.mu.Lock()
	defer s.mu.Unlock()
	switch t, ok := s.channelLocked(id); {
	case t != nil:
		return http.StatusOK, s.threadChannel(*t)
	case ok:
		return http.StatusOK, s.textChannel(id)
	}
	return http.StatusNotFound, apiError(codeUnknownChannel, "Unknown Channel")
}

// readBody decodes a JSON body, or the payload_json part of a multipart one
// (discordgo sends multipart when files are attached), and returns the
// files attached; errTooLarge for a file over MaxFileBytes.
func readBody(r *http.Request, v any) ([]upload, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		return readMultipart(r, v)
	}
	return nil, fakeserver.ReadJSON(r, v)
}

// invalidJSON is Discord's 400 for a body that does not decode.
func invalidJSON() (int, any) {
	return http.StatusBadRequest, apiError(codeInvalidJSON, "The request body contains invalid JSON.")
}

// invalidForm is Discord's 400 for a field out of its bounds.
func invalidForm() (int, any) {
	return http.StatusBadRequest, apiError(codeInvalidFormBody, "Invalid Form Body")
}

func writeError(w http.ResponseWriter, status, code int, msg string) {
	fakeserver.WriteJSON(w, status, apiError(code, msg))
}

func apiError(code int, msg string) map[string]any {
	return map[string]any{"message": msg, "code": code}
}
