package fakeslack

import (
	"net/url"
	"strings"
)

// reactLocked answers reactions.add: the bot's reaction recorded on the
// message, once per name (Slack counts one reaction per user and emoji).
// No reaction_added event is sent: the fake's apps subscribe to message
// events only.
func (s *Server) reactLocked(token string, form url.Values) map[string]any {
	channel, ts, name := form.Get("channel"), form.Get("timestamp"), form.Get("name")
	if channel == "" || ts == "" {
		return fail("no_item_specified")
	}
	if e := s.writeErrLocked(channel); e != "" {
		return fail(e)
	}
	if _, ok := tsMicros(ts); !ok {
		return fail("bad_timestamp")
	}
	m := s.messageLocked(channel, ts)
	if m == nil {
		return fail("message_not_found")
	}
	m.ReactRequests++
	s.notifyLocked()
	if !validEmojiName(name) {
		return fail("invalid_name")
	}
	r := Reaction{Name: name, User: BotUserID(token)}
	for _, have := range m.Reactions {
		if have == r {
			return fail("already_reacted")
		}
	}
	m.Reactions = append(m.Reactions, r)
	s.notifyLocked()
	s.logf("reaction %s added to %s in %s", name, ts, channel)
	return map[string]any{"ok": true}
}

// validEmojiName accepts what could be an emoji name ("eyes",
// "+1", "thumbsup::skin-tone-2"); the fake knows no emoji list, so only
// an empty name or one with spaces or wrapping colons is invalid.
func validEmojiName(name string) bool {
	return name != "" && !strings.ContainsAny(name, " \t\n") &&
		!strings.HasPrefix(name, ":") && !strings.HasSuffix(name, ":")
}

// reactionsJSON renders reactions as the Web API lists them: one entry per
// name, in the order each was first added, with its users.
func reactionsJSON(rs []Reaction) []map[string]any {
	var out []map[string]any
	at := map[string]int{}
	for _, r := range rs {
		i, ok := at[r.Name]
		if !ok {
			i = len(out)
			at[r.Name] = i
			out = append(out, map[string]any{"name": r.Name, "users": []string{}, "count": 0})
		}
		out[i]["users"] = append(out[i]["users"].([]string), r.User)
		out[i]["count"] = out[i]["count"].(int) + 1
	}
	return out
}
