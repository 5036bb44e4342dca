package faketelegram

// The switches a test flips to take something away from the bot: its
// token, its connection, a chat, the whole service.

// SetTokenRejected is SetTokenRevoked for the bot's token (another token
// is refused anyway): the name the other fakes give it.
func (s *Server) SetTokenRejected(token string, rejected bool) {
	if token == s.opts.Token {
		s.SetTokenRevoked(rejected)
	}
}

// DropConnections cuts the waiting getUpdates, as a network failure
// would, or, when none is waiting, the next getUpdates; it returns how
// many it cut now. The Bot API has no other lasting connection.
func (s *Server) DropConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.endPollLocked(pollEnd{mode: FailCut}) {
		return 1
	}
	s.faults.dropPoll = true
	return 0
}

// SetTokenRevoked revokes the bot's token (BotFather's /revoke) or
// restores it: while revoked every method answers 401 "Unauthorized",
// and a waiting getUpdates at once.
func (s *Server) SetTokenRevoked(revoked bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.revoked = revoked
	if revoked {
		s.endPollLocked(pollEnd{answer: unauthorized("Unauthorized")})
	}
}

// SetBotKicked removes the bot from a chat (0: the first) or brings it
// back: while out, every method on the chat answers 403 "Forbidden: bot
// was kicked from the supergroup chat".
func (s *Server) SetBotKicked(chatID int64, kicked bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.defaultChatLocked(chatID)
	if err != nil {
		return err
	}
	ch.kicked = kicked
	return nil
}

// SetUnavailable starts or ends an outage of the whole API: every
// request is answered 502 by the edge before it reaches a method, and a
// waiting getUpdates is cut with a 502.
func (s *Server) SetUnavailable(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.outage = on
	if on {
		s.endPollLocked(pollEnd{mode: Fail502})
	}
}

func (s *Server) outage() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults.outage
}
