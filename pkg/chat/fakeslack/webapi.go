package fakeslack

import (
	"encoding/json"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// maxTextLen is Slack's limit on a message's text, in characters.
const maxTextLen = 40000

// method is a Web API method the fake knows: the token kind it takes, its
// answer, made under the lock, and the scopes it takes, as Slack's
// X-Accepted-OAuth-Scopes lists them: any one of them may do, depending on
// the kind of conversation.
type method struct {
	kind   int
	run    func(s *Server, token string, form url.Values) map[string]any
	scopes []string
}

var methods = map[string]method{
	"auth.test":                    {anyToken, (*Server).authTestLocked, nil},
	"apps.connections.open":        {appToken, (*Server).openConnectionLocked, []string{"connections:write"}},
	"chat.postMessage":             {botToken, (*Server).postMessageLocked, []string{"chat:write"}},
	"chat.update":                  {botToken, (*Server).updateLocked, []string{"chat:write"}},
	"chat.postEphemeral":           {botToken, (*Server).postEphemeralLocked, []string{"chat:write"}},
	"conversations.history":        {botToken, (*Server).historyLocked, historyScopes},
	"conversations.replies":        {botToken, (*Server).repliesLocked, historyScopes},
	"conversations.info":           {botToken, (*Server).infoLocked, []string{"channels:read", "groups:read", "im:read", "mpim:read"}},
	"reactions.add":                {botToken, (*Server).reactLocked, []string{"reactions:write"}},
	"files.getUploadURLExternal":   {botToken, (*Server).getUploadURLLocked, []string{"files:write"}},
	"files.completeUploadExternal": {botToken, (*Server).completeUploadLocked, []string{"files:write"}},
	"files.info":                   {botToken, (*Server).fileInfoLocked, []string{"files:read"}},
}

// createMethods make what a person sees in the channel: a post, and the
// completion of an upload, which shares the file in a message. The
// faults that apply to posts (HoldNextPost, AcceptThenFail,
// RateLimitNext) and Snapshot.Posts apply to each of them.
var createMethods = map[string]bool{"chat.postMessage": true, "files.completeUploadExternal": true}

var historyScopes = []string{"channels:history", "groups:history", "im:history", "mpim:history"}

// serveAPI answers a Web API method. Slack answers errors with HTTP 200 and
// ok:false, so only a rate limit (and an injected fault) changes the
// status code.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	form, err := readForm(r)
	if err != nil {
		writeJSON(w, http.StatusOK, fail("invalid_form_data"))
		return
	}
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if token == "" {
		token = form.Get("token")
	}
	method := r.PathValue("method")
	isPost := createMethods[method]
	if isPost {
		s.core.Posted()
		if !s.waitHold() {
			return
		}
	}
	resp, retryAfter := s.call(method, token, form, w.Header())
	if retryAfter > 0 {
		secs := max(1, int(math.Ceil(retryAfter.Seconds())))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeJSON(w, http.StatusTooManyRequests, resp)
		return
	}
	if isPost && resp["ok"] == true {
		s.mu.Lock()
		mode, hit := s.core.TakeAcceptFailLocked()
		s.mu.Unlock()
		if hit {
			s.logf("%s accepted, answered as failed (mode %d)", method, mode)
			s.core.Fail(w, mode)
			return
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

// call runs a method under the lock; a positive retryAfter means HTTP 429.
// An answer to an accepted token carries its scope headers.
func (s *Server) call(method, token string, form url.Values, h http.Header) (resp map[string]any, retryAfter time.Duration) {
	m, known := methods[method]
	if !known {
		return fail("unknown_method"), 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.checkTokenLocked(token, m.kind); e != "" {
		s.logf("%s: %s", method, e)
		return fail(e), 0
	}
	s.setScopeHeadersLocked(h, method, token)
	if e := s.scopeErrLocked(method, token, form); e != nil {
		return e, 0
	}
	if createMethods[method] {
		if after, hit := s.core.TakeRateLimitLocked(); hit {
			return fail("ratelimited"), max(after, time.Nanosecond)
		}
	}
	if after := s.methodLimitLocked(method, time.Now()); after > 0 {
		return fail("ratelimited"), after
	}
	return m.run(s, token, form), 0
}

func (s *Server) authTestLocked(token string, _ url.Values) map[string]any {
	return map[string]any{
		"ok": true, "url": "https://fakeslack.invalid/", "team": "Fake Team", "team_id": s.opts.TeamID,
		"user": "fakebot", "user_id": BotUserID(token), "bot_id": BotID(token), "is_enterprise_install": false,
	}
}

// openConnectionLocked hands out a single-use socket URL, as Slack's tickets are.
func (s *Server) openConnectionLocked(token string, _ url.Values) map[string]any {
	s.appLocked(token) // from now on the app receives events, queued until it connects
	ticket := fakeserver.RandomHex(16)
	s.tickets[ticket] = token
	u := "ws" + strings.TrimPrefix(s.URL(), "http") + "/link/?ticket=" + ticket + "&app_id=" + url.QueryEscape(s.opts.AppID)
	return map[string]any{"ok": true, "url": u}
}

func (s *Server) postMessageLocked(token string, form url.Values) map[string]any {
	channel, text := form.Get("channel"), form.Get("text")
	if e := s.writeErrLocked(channel); e != "" {
		return fail(e)
	}
	if e := checkText(text, form); e != "" {
		return fail(e)
	}
	md, e := parseMetadata(form.Get("metadata"))
	if e != "" {
		return fail(e)
	}
	blocks, buttons, be := parseBlocks(form.Get("blocks"))
	if be != nil {
		return be.answer()
	}
	parent, ok := s.threadLocked(channel, form.Get("thread_ts"))
	if !ok {
		return fail("thread_not_found")
	}
	m := s.addMessageLocked(Message{
		Channel: channel, ThreadTS: parent, User: BotUserID(token), BotID: BotID(token), Text: text,
		Metadata: md, Blocks: blocks, Buttons: buttons, PostedButtons: buttons, UnfurlLinks: form.Get("unfurl_links"), UnfurlMedia: form.Get("unfurl_media"),
		Parse: form.Get("parse"), LinkNames: form.Get("link_names"),
	})
	s.logf("message %s posted in %s", m.TS, channel)
	return map[string]any{"ok": true, "channel": m.Channel, "ts": m.TS, "message": s.apiMessageLocked(m, false)}
}

// checkText returns Slack's error for a message's text, "" when it is fine.
func checkText(text string, form url.Values) string {
	if text == "" && form.Get("blocks") == "" && form.Get("attachments") == "" {
		return "no_text"
	}
	if utf8.RuneCountInString(text) > maxTextLen {
		return "msg_too_long"
	}
	return ""
}

// readForm gathers parameters from the query, a form body or a JSON body;
// slack-go sends forms, other clients JSON.
func readForm(r *http.Request) (url.Values, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" {
		if err := r.ParseForm(); err != nil {
			return nil, err
		}
		return r.Form, nil
	}
	form := r.URL.Query()
	var body map[string]any
	if err := fakeserver.ReadJSON(r, &body); err != nil {
		return nil, err
	}
	for k, v := range body {
		switch v := v.(type) {
		case string:
			form.Set(k, v)
		case nil:
		default:
			b, _ := json.Marshal(v)
			form.Set(k, string(b))
		}
	}
	return form, nil
}

func fail(code string) map[string]any { return map[string]any{"ok": false, "error": code} }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	fakeserver.WriteJSON(w, status, v)
}
