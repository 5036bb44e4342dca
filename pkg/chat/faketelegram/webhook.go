package faketelegram

// SetWebhook sets the bot's webhook as another program would (url ""
// deletes it): while one is set getUpdates answers 409, and a waiting
// getUpdates is ended with 409 "terminated by setWebhook request".
func (s *Server) SetWebhook(url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setWebhookURLLocked(url)
}

func (s *Server) setWebhookURLLocked(url string) {
	s.webhook = url
	if url != "" {
		s.endPollLocked(pollEnd{answer: conflict(conflictSetHook)})
	}
	s.core.NotifyLocked()
}

// setWebhookLocked answers setWebhook (nothing is ever sent to it).
func (s *Server) setWebhookLocked(p params) *answer {
	url := p["url"]
	s.setWebhookURLLocked(url)
	if p.bool("drop_pending_updates") {
		s.updates.confirm(s.updates.next)
	}
	return ok(true)
}

// deleteWebhookLocked answers deleteWebhook, counted: a daemon must never
// delete a webhook someone else set.
func (s *Server) deleteWebhookLocked(p params) *answer {
	s.counts.deleteWebhook++
	s.setWebhookURLLocked("")
	if p.bool("drop_pending_updates") {
		s.updates.confirm(s.updates.next)
	}
	return ok(true)
}

func (s *Server) getWebhookInfoLocked(params) *answer {
	return ok(map[string]any{"url": s.webhook, "has_custom_certificate": false, "pending_update_count": len(s.updates.pending)})
}
