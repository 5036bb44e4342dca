package fakediscord

import "slices"

// DeleteMessage deletes a message as a moderator does in Discord: from
// then on REST does not know it (10008 Unknown Message), and a thread can
// no longer be started from it. A thread already started from it stays,
// as on Discord. It reports whether the message was there. No
// MESSAGE_DELETE is dispatched: nothing here reads one.
func (s *Server) DeleteMessage(channelID, messageID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.messages)
	s.messages = slices.DeleteFunc(s.messages, func(m Message) bool { return m.ID == messageID && m.ChannelID == channelID })
	if len(s.messages) == n {
		return false
	}
	s.logf("message %s deleted in %s", messageID, channelID)
	s.notifyLocked()
	return true
}
