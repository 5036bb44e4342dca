package faketelegram

import (
	"net/http"
	"strings"
	"time"
)

// method is a Bot API method the fake knows: its answer, made under the lock.
type method struct {
	run func(s *Server, p params) *answer
	// posts marks the methods that put a message in a chat: they spend
	// the chat's budget (Limit) and RateLimitNext applies to sendMessage.
	posts bool
}

// methods are looked up by lower-case name: the service takes any case.
var methods = map[string]method{
	"getme":               {run: (*Server).getMeLocked},
	"sendmessage":         {run: (*Server).sendMessageLocked, posts: true},
	"editmessagetext":     {run: (*Server).editMessageTextLocked},
	"createforumtopic":    {run: (*Server).createForumTopicLocked, posts: true},
	"closeforumtopic":     {run: (*Server).closeForumTopicLocked, posts: true},
	"editforumtopic":      {run: (*Server).editForumTopicLocked},
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
	p, err := readParams(r)
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
	if name == "sendmessage" {
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
	a := s.call(name, m, p)
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
func (s *Server) call(name string, m method, p params) *answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !m.posts {
		return m.run(s, p)
	}
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return fail
	}
	if name == "sendmessage" {
		if after, hit := s.core.TakeRateLimitLocked(); hit {
			return tooMany(retrySecs(after))
		}
	}
	now := time.Now()
	if wait := ch.budget.wait(now); wait > 0 {
		s.logf("%s: chat %d over its budget for %v", name, ch.ID, wait)
		return tooMany(retrySecs(wait))
	}
	a := m.run(s, p)
	if a.status == http.StatusOK {
		ch.budget.spend(now)
	}
	return a
}

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
