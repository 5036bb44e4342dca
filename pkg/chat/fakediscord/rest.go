package fakediscord

import (
	"encoding/json"
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
	m.HandleFunc("GET /api/{v}/gateway/bot", s.authed(s.getGatewayBot))
	m.HandleFunc("GET /api/{v}/users/@me", s.authed(s.getMe))
	m.HandleFunc("GET /api/{v}/applications/@me", s.authed(s.getApplication))
	m.HandleFunc("GET /api/{v}/guilds/{gid}", s.authed(s.getGuild))
	m.HandleFunc("GET /api/{v}/guilds/{gid}/members/{uid}", s.authed(s.getGuildMember))
	m.HandleFunc("GET /api/{v}/channels/{cid}", s.authed(s.routeLimited(s.viewing(s.getChannel))))
	m.HandleFunc("PATCH /api/{v}/channels/{cid}", s.authed(s.routeLimited(s.patchChannel)))
	m.HandleFunc("GET /api/{v}/channels/{cid}/messages", s.authed(s.routeLimited(s.listMessages)))
	m.HandleFunc("POST /api/{v}/channels/{cid}/messages", s.authed(s.routeLimited(s.limited(s.postMessage))))
	m.HandleFunc("GET /api/{v}/channels/{cid}/messages/{mid}", s.authed(s.routeLimited(s.getMessage)))
	m.HandleFunc("PATCH /api/{v}/channels/{cid}/messages/{mid}", s.authed(s.routeLimited(s.patchMessage)))
	m.HandleFunc("PUT /api/{v}/channels/{cid}/messages/{mid}/reactions/{emoji}/@me", s.authed(s.routeLimited(s.addReaction)))
	m.HandleFunc("POST /api/{v}/channels/{cid}/threads", s.authed(s.routeLimited(s.limited(s.startThread))))
	m.HandleFunc("POST /api/{v}/channels/{cid}/messages/{mid}/threads", s.authed(s.routeLimited(s.limited(s.startMessageThread))))
	m.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, 0, "404: Not Found")
	})
	return m
}

type handler func(w http.ResponseWriter, r *http.Request, token string)

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

func (s *Server) getGatewayBot(w http.ResponseWriter, _ *http.Request, _ string) {
	fakeserver.WriteJSON(w, http.StatusOK, map[string]any{
		"url":    s.GatewayURL(),
		"shards": 1,
		"session_start_limit": map[string]int{
			"total": 1000, "remaining": 1000, "reset_after": 86400000, "max_concurrency": 1,
		},
	})
}

func (s *Server) getMe(w http.ResponseWriter, _ *http.Request, token string) {
	fakeserver.WriteJSON(w, http.StatusOK, botUser(token))
}

func (s *Server) getChannel(w http.ResponseWriter, r *http.Request, _ string) {
	id := r.PathValue("cid")
	s.mu.Lock()
	t, ok := s.channelLocked(id)
	var body map[string]any
	switch {
	case t != nil:
		body = s.threadChannel(*t)
	case ok:
		body = s.textChannel(id)
	}
	s.mu.Unlock()
	if body == nil {
		writeError(w, http.StatusNotFound, codeUnknownChannel, "Unknown Channel")
		return
	}
	fakeserver.WriteJSON(w, http.StatusOK, body)
}

// readBody decodes a JSON body, or the payload_json part of a multipart one
// (discordgo sends multipart when files are attached). It reports whether
// files were attached.
func readBody(r *http.Request, v any) (files bool, err error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		if err := r.ParseMultipartForm(8 << 20); err != nil {
			return false, err
		}
		files = len(r.MultipartForm.File) > 0
		pj := r.FormValue("payload_json")
		if pj == "" {
			return files, nil
		}
		return files, json.Unmarshal([]byte(pj), v)
	}
	return false, fakeserver.ReadJSON(r, v)
}

func writeError(w http.ResponseWriter, status, code int, msg string) {
	fakeserver.WriteJSON(w, status, apiError(code, msg))
}

func apiError(code int, msg string) map[string]any {
	return map[string]any{"message": msg, "code": code}
}
