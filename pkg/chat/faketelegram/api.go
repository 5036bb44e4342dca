package faketelegram

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

// method is a Bot API method the fake knows: its answer, made under the lock.
type method struct {
	run func(s *Server, p params) *answer
	// withFiles, set instead of run, is a method that takes files.
	withFiles func(s *Server, p params, up uploads) *answer
	// posts marks the methods that put a message in a chat or edit one:
	// they spend the chat's budget (Limit: the service throttles edits as
	// it does posts, and the daemon paces both), and RateLimitNext,
	// AcceptThenFail and the Posts count apply to those that post a
	// message (isMessagePost).
	posts bool
}

// methods are looked up by lower-case name: the service takes any case.
var methods = map[string]method{
	"getme":               {run: (*Server).getMeLocked},
	"sendmessage":         {run: (*Server).sendMessageLocked, posts: true},
	"senddocument":        {withFiles: (*Server).sendDocumentLocked, posts: true},
	"editmessagetext":     {run: (*Server).editMessageTextLocked, posts: true},
	"editmessagecaption":  {run: (*Server).editMessageCaptionLocked, posts: true},
	"getfile":             {run: (*Server).getFileLocked},
	"createforumtopic":    {run: (*Server).createForumTopicLocked, posts: true},
	"closeforumtopic":     {run: (*Server).closeForumTopicLocked, posts: true},
	"editforumtopic":      {run: (*Server).editForumTopicLocked, posts: true},
	"reopenforumtopic":    {run: (*Server).reopenForumTopicLocked},
	"setmessagereaction":  {run: (*Server).setMessageReactionLocked},
	"setwebhook":          {run: (*Server).setWebhookLocked},
	"deletewebhook":       {run: (*Server).deleteWebhookLocked},
	"getwebhookinfo":      {run: (*Server).getWebhookInfoLocked},
	"getchat":             {run: (*Server).getChatLocked},
	"getchatmember":       {run: (*Server).getChatMemberLocked},
	"answercallbackquery": {run: (*Server).answerCallbackQueryLocked},
}

// serveAPI answers POST (or GET) /bot<token>/<method>.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	token, isBot := strings.CutPrefix(r.PathValue("bot"), "bot")
	if !isBot {
		writeAnswer(w, notFound("Not Found"))
		return
	}
	name := strings.ToLower(r.PathValue("method"))
	p, up, err := readParams(r)
	if errors.Is(err, errTooLarge) {
		writeAnswer(w, &answer{status: http.StatusRequestEntityTooLarge, body: failBody(http.StatusRequestEntityTooLarge, "Request Entity Too Large")})
		return
	}
	if err != nil {
		writeAnswer(w, badRequest(err.Error()))
		return
	}
	if s.outage() {
		s.core.Fail(w, Fail502)
		return
	}
	if a := s.checkToken(token); a != nil {
		s.logf("%s: %s", name, a.body["description"])
		writeAnswer(w, a)
		return
	}
	if name == "getupdates" {
		s.getUpdates(w, r, p)
		return
	}
	m, known := methods[name]
	if !known {
		writeAnswer(w, notFound("Not Found: method not found"))
		return
	}
	if isMessagePost(name) {
		s.core.Posted()
	}
	if mode, hit := s.takeFault(name, false); hit {
		s.logf("%s dropped before it ran (mode %d)", name, mode)
		s.core.Fail(w, mode)
		return
	}
	if !s.waitHold(name) {
		return
	}
	a := s.call(name, m, p, up)
	if a.status == http.StatusOK {
		if mode, hit := s.takeFault(name, true); hit {
			s.logf("%s ran, answered as failed (mode %d)", name, mode)
			s.core.Fail(w, mode)
			return
		}
	}
	writeAnswer(w, a)
}

// checkToken is the service's answer to a token it does not take, nil
// for the bot's own.
func (s *Server) checkToken(token string) *answer {
	if token == "" || token[0] == '0' || !strings.Contains(token, ":") || strings.Contains(token, "/") || len(token) > 80 {
		return unauthorized("Unauthorized: invalid token specified")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if token != s.opts.Token || s.faults.revoked {
		return unauthorized("Unauthorized")
	}
	return nil
}

// call runs a method under the lock; a posting one first meets the
// chat's budget and an injected 429.
func (s *Server) call(name string, m method, p params, up uploads) *answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	run := func() *answer {
		if m.withFiles != nil {
			return m.withFiles(s, p, up)
		}
		return m.run(s, p)
	}
	if !m.posts {
		return run()
	}
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return fail
	}
	if isMessagePost(name) {
		if after, hit := s.core.TakeRateLimitLocked(); hit {
			return tooMany(retrySecs(after))
		}
	}
	now := time.Now()
	if wait := ch.budget.wait(now); wait > 0 {
		s.logf("%s: chat %d over its budget for %v", name, ch.ID, wait)
		return tooMany(retrySecs(wait))
	}
	a := run()
	if a.status == http.StatusOK {
		ch.budget.spend(now)
	}
	return a
}

// isMessagePost says whether a method (lower case) posts a message of
// the bot's: the create requests the shared fault hooks count and fail
// (an upload is a post like any other).
func isMessagePost(method string) bool { return method == "sendmessage" || method == "senddocument" }

// retrySecs is a wait as retry_after says it: whole seconds, at least 1.
func retrySecs(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

func (s *Server) getMeLocked(params) *answer {
	return ok(map[string]any{
		"id": s.bot.ID, "is_bot": true, "first_name": s.bot.FirstName, "username": s.bot.Username,
		"can_join_groups": true, "can_read_all_group_messages": !s.privacy, "supports_inline_queries": false,
	})
}
