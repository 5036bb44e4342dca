package fakeslack

// DeleteMessage deletes a message as a workspace admin does in Slack. A
// thread's parent that still has replies stays as Slack keeps it, a
// placeholder (subtype tombstone, "This message was deleted.", no
// metadata), and its thread goes on; any other message is removed: a
// reply to it (chat.postMessage with its thread_ts) and a read of its
// thread (conversations.replies) answer thread_not_found, chat.update
// message_not_found. It reports whether the message was there. No
// message_deleted event is sent: nothing here reads one.
func (s *Server) DeleteMessage(channel, ts string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, replies := -1, 0
	for j, m := range s.messages {
		switch {
		case m.Channel != channel:
		case m.TS == ts:
			i = j
		case m.ThreadTS == ts:
			replies++
		}
	}
	if i < 0 {
		return false
	}
	if replies > 0 && s.messages[i].ThreadTS == "" {
		m := &s.messages[i]
		m.SubType, m.Text, m.User, m.BotID, m.Metadata, m.Files = "tombstone", "This message was deleted.", "USLACKBOT", "", nil, nil
	} else {
		s.messages = append(s.messages[:i], s.messages[i+1:]...)
	}
	s.logf("message %s deleted in %s", ts, channel)
	s.notifyLocked()
	return true
}
