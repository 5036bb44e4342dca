package fakeslack

import (
	"net/url"
	"strings"
)

// SetChannelUnknown makes a channel answer channel_not_found everywhere
// (as a deleted channel, or a wrong id, does) or brings it back.
func (s *Server) SetChannelUnknown(channel string, unknown bool) {
	s.core.Toggle(s.unknown, channel, unknown)
}

// SetNotInChannel removes the bots from a channel, or adds them back.
// While out, chat.postMessage, chat.update, conversations.history and
// conversations.replies answer not_in_channel, and conversations.info
// answers ok with is_member false, as Slack does for a public channel.
func (s *Server) SetNotInChannel(channel string, out bool) { s.core.Toggle(s.notIn, channel, out) }

// SetChannelArchived archives a channel or unarchives it. While archived,
// conversations.info says is_archived and chat.postMessage and chat.update
// answer is_archived; history and replies still read it, as in Slack.
func (s *Server) SetChannelArchived(channel string, archived bool) {
	s.core.Toggle(s.archived, channel, archived)
}

// writeErrLocked is the error a method writing to a channel answers, "" if none.
func (s *Server) writeErrLocked(channel string) string {
	if e := s.channelErrLocked(channel); e != "" {
		return e
	}
	if s.archived[channel] {
		return "is_archived"
	}
	return ""
}

// channelErrLocked is the error a method about a channel answers, "" if none.
func (s *Server) channelErrLocked(channel string) string {
	switch {
	case !s.channelLocked(channel):
		return "channel_not_found"
	case s.notIn[channel]:
		return "not_in_channel"
	}
	return ""
}

// infoLocked answers conversations.info.
func (s *Server) infoLocked(_ string, form url.Values) map[string]any {
	id := form.Get("channel")
	if !s.channelLocked(id) {
		return fail("channel_not_found")
	}
	return map[string]any{"ok": true, "channel": map[string]any{
		"id": id, "name": "fake-" + strings.ToLower(id), "created": 1700000000, "creator": "U0FAKEADMIN",
		"is_channel": channelType(id) == "channel", "is_group": channelType(id) == "group", "is_im": channelType(id) == "im",
		"is_private": channelType(id) != "channel", "is_archived": s.archived[id], "is_general": false,
		"is_member": !s.notIn[id],
	}}
}
