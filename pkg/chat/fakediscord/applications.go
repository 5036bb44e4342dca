package fakediscord

import "net/http"

// SetApplicationID makes a bot token belong to another application, as a
// token copied from the wrong application in the developer portal does;
// "" gives it back its own, ApplicationID(token).
func (s *Server) SetApplicationID(token, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		delete(s.faults.appIDs, token)
		return
	}
	s.faults.appIDs[token] = id
}

// ApplicationID is the application a bot token belongs to unless
// SetApplicationID says otherwise: its bot user's ID, as for every
// application whose bot Discord made with it.
func ApplicationID(token string) string { return BotUserID(token) }

// applicationIDLocked is a token's application ID now.
func (s *Server) applicationIDLocked(token string) string {
	if id, ok := s.faults.appIDs[token]; ok {
		return id
	}
	return ApplicationID(token)
}

// getApplication is GET /applications/@me: the bot's application, whose
// flags say whether the Message Content intent is on (as READY's do, and
// as the gateway's 4014 agrees: SetMessageContentIntent).
func (s *Server) getApplication(_ *http.Request, token string) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return http.StatusOK, map[string]any{
		"id":                     s.applicationIDLocked(token),
		"name":                   botUsername(token),
		"icon":                   nil,
		"description":            "",
		"bot_public":             true,
		"bot_require_code_grant": false,
		"verify_key":             "",
		"team":                   nil,
		"owner":                  apiUser{ID: GuildOwnerID, Username: "owner", Discriminator: "0"},
		"bot":                    botUser(token),
		"flags":                  s.appFlagsLocked(token),
	}
}
