package fakeslack

import (
	"encoding/base64"
	"iter"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// historyLocked lists a channel's top-level messages, newest first, a page
// at a time: next_cursor, when has_more, continues with older messages.
func (s *Server) historyLocked(_ string, form url.Values) map[string]any {
	channel := form.Get("channel")
	if e := s.channelErrLocked(channel); e != "" {
		return fail(e)
	}
	in := window(form)
	resp := s.pageLocked(form, slices.Backward(s.messages), limit(form, 100), func(m Message, from int64) bool {
		return m.Channel == channel && m.ThreadTS == "" && in(m.TS) && (from < 0 || micros(m.TS) <= from)
	})
	if resp["ok"] == true {
		resp["pin_count"] = 0
	}
	return resp
}

// repliesLocked lists a thread: its parent (first on every page, not
// counted in limit, so every page makes progress), then the replies oldest
// first, a page at a time.
func (s *Server) repliesLocked(_ string, form url.Values) map[string]any {
	channel := form.Get("channel")
	if e := s.channelErrLocked(channel); e != "" {
		return fail(e)
	}
	parent, ok := s.threadLocked(channel, form.Get("ts"))
	if form.Get("ts") == "" || !ok {
		return fail("thread_not_found")
	}
	in := window(form)
	return s.pageLocked(form, slices.All(s.messages), limit(form, 1000)+1, func(m Message, from int64) bool {
		return m.Channel == channel && (m.TS == parent ||
			m.ThreadTS == parent && in(m.TS) && (from < 0 || micros(m.TS) >= from))
	})
}

// pageLocked answers one page of a listing: the first n of msgs (in the
// listing's order) that on says are on this page or a later one, given the
// cursor's ts (-1 for none); the next one left out starts the next page.
func (s *Server) pageLocked(form url.Values, msgs iter.Seq2[int, Message], n int, on func(m Message, from int64) bool) map[string]any {
	from, ok := cursorTS(form.Get("cursor"))
	if !ok {
		return fail("invalid_cursor")
	}
	withMeta := flag(form, "include_all_metadata")
	out, next := []map[string]any{}, ""
	for _, m := range msgs {
		if !on(m, from) {
			continue
		}
		if len(out) == n {
			next = cursorFor(m.TS)
			break
		}
		out = append(out, s.apiMessageLocked(m, withMeta))
	}
	return map[string]any{
		"ok": true, "messages": out, "has_more": next != "",
		"response_metadata": map[string]string{"next_cursor": next},
	}
}

// apiMessageLocked renders a message as the Web API does, with a parent's
// thread summary and the reactions; its metadata only when asked for, as
// Slack returns it only with include_all_metadata.
func (s *Server) apiMessageLocked(m Message, withMeta bool) map[string]any {
	out := s.messageObjectLocked(m)
	if withMeta && m.Metadata != nil {
		out["metadata"] = map[string]any{"event_type": m.Metadata.EventType, "event_payload": m.Metadata.EventPayload}
	}
	if m.EditedTS != "" {
		out["edited"] = map[string]string{"user": m.User, "ts": m.EditedTS}
	}
	if r := reactionsJSON(m.Reactions); r != nil {
		out["reactions"] = r
	}
	if m.ThreadTS != "" {
		return out
	}
	var users []string
	count, latest := 0, ""
	for _, r := range s.messages {
		if r.Channel == m.Channel && r.ThreadTS == m.TS {
			count++
			latest = r.TS
			if r.User != "" && !slices.Contains(users, r.User) { // a bot_message has no user
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
	inclusive := flag(form, "inclusive")
	return func(ts string) bool {
		t, _ := tsMicros(ts)
		if hasOldest && (t < oldest || (t == oldest && !inclusive)) {
			return false
		}
		return !hasLatest || t < latest || (t == latest && inclusive)
	}
}

func flag(form url.Values, name string) bool {
	v := form.Get(name)
	return v == "1" || v == "true"
}

// Cursors have the shape of Slack's: base64 of "next_ts:<micros>", the
// first message of the next page.
func cursorFor(ts string) string {
	return base64.StdEncoding.EncodeToString([]byte("next_ts:" + strconv.FormatInt(micros(ts), 10)))
}

// cursorTS decodes a cursor; -1 for none, ok false for a malformed one.
func cursorTS(c string) (int64, bool) {
	if c == "" {
		return -1, true
	}
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	v, found := strings.CutPrefix(string(b), "next_ts:")
	n, err := strconv.ParseInt(v, 10, 64)
	return n, found && err == nil && n >= 0
}

func micros(ts string) int64 {
	t, _ := tsMicros(ts)
	return t
}

func limit(form url.Values, def int) int {
	n, err := strconv.Atoi(form.Get("limit"))
	if err != nil || n <= 0 {
		return def
	}
	return min(n, 1000)
}
