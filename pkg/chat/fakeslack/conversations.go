package fakeslack

import (
	"net/url"
	"slices"
	"strconv"
)

// historyLocked lists a channel's top-level messages, newest first.
func (s *Server) historyLocked(form url.Values) map[string]any {
	channel := form.Get("channel")
	if !s.channelLocked(channel) {
		return fail("channel_not_found")
	}
	in := window(form)
	var out []map[string]any
	more := false
	for i := len(s.messages) - 1; i >= 0; i-- {
		m := s.messages[i]
		if m.Channel != channel || m.ThreadTS != "" || !in(m.TS) {
			continue
		}
		if len(out) == limit(form, 100) {
			more = true
			break
		}
		out = append(out, s.apiMessageLocked(m))
	}
	return map[string]any{
		"ok": true, "messages": nonNil(out), "has_more": more, "pin_count": 0,
		"response_metadata": map[string]string{"next_cursor": ""},
	}
}

// repliesLocked lists a thread: its parent, then the replies oldest first.
func (s *Server) repliesLocked(form url.Values) map[string]any {
	channel := form.Get("channel")
	if !s.channelLocked(channel) {
		return fail("channel_not_found")
	}
	parent, ok := s.threadLocked(channel, form.Get("ts"))
	if form.Get("ts") == "" || !ok {
		return fail("thread_not_found")
	}
	in := window(form)
	var out []map[string]any
	more := false
	for _, m := range s.messages {
		if m.Channel != channel || (m.TS != parent && m.ThreadTS != parent) || (m.TS != parent && !in(m.TS)) {
			continue
		}
		if len(out) == limit(form, 1000) {
			more = true
			break
		}
		out = append(out, s.apiMessageLocked(m))
	}
	return map[string]any{
		"ok": true, "messages": nonNil(out), "has_more": more,
		"response_metadata": map[string]string{"next_cursor": ""},
	}
}

// apiMessageLocked renders a message as the Web API does, with a parent's
// thread summary.
func (s *Server) apiMessageLocked(m Message) map[string]any {
	out := map[string]any{"type": "message", "user": m.User, "text": m.Text, "ts": m.TS, "team": s.opts.TeamID}
	if m.BotID != "" {
		out["bot_id"], out["app_id"] = m.BotID, s.opts.AppID
	}
	if m.ThreadTS != "" {
		out["thread_ts"] = m.ThreadTS
		for _, p := range s.messages {
			if p.Channel == m.Channel && p.TS == m.ThreadTS {
				out["parent_user_id"] = p.User
			}
		}
		return out
	}
	var users []string
	count, latest := 0, ""
	for _, r := range s.messages {
		if r.Channel == m.Channel && r.ThreadTS == m.TS {
			count++
			latest = r.TS
			if !slices.Contains(users, r.User) {
				users = append(users, r.User)
			}
		}
	}
	if count > 0 {
		out["thread_ts"], out["reply_count"], out["reply_users_count"] = m.TS, count, len(users)
		out["latest_reply"], out["reply_users"] = latest, users
	}
	return out
}

// window returns a filter for the oldest/latest/inclusive parameters.
func window(form url.Values) func(ts string) bool {
	oldest, hasOldest := tsMicros(form.Get("oldest"))
	latest, hasLatest := tsMicros(form.Get("latest"))
	inclusive := form.Get("inclusive") == "1" || form.Get("inclusive") == "true"
	return func(ts string) bool {
		t, _ := tsMicros(ts)
		if hasOldest && (t < oldest || (t == oldest && !inclusive)) {
			return false
		}
		return !hasLatest || t < latest || (t == latest && inclusive)
	}
}

func limit(form url.Values, def int) int {
	n, err := strconv.Atoi(form.Get("limit"))
	if err != nil || n <= 0 {
		return def
	}
	return min(n, 1000)
}

func nonNil(ms []map[string]any) []map[string]any {
	if ms == nil {
		return []map[string]any{}
	}
	return ms
}
