package fakediscord

import (
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Discord's JSON error codes for a guild or member the bot cannot find.
const (
	codeUnknownGuild  = 10004
	codeUnknownMember = 10007
)

// GuildOwnerID is the fake guild's owner: a human, never a bot, since an
// owner has every permission whatever the roles say.
const GuildOwnerID = "300000000000000099"

// joinedAt is when every member joined the fake guild.
var joinedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// getGuild is GET /guilds/{gid}: the guild with its roles, @everyone's ID
// being the guild's. A guild the bot is not in answers 404 Unknown Guild.
func (s *Server) getGuild(r *http.Request, token string) (int, any) {
	if r.PathValue("gid") != s.opts.GuildID {
		return http.StatusNotFound, apiError(codeUnknownGuild, "Unknown Guild")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return http.StatusOK, map[string]any{
		"id":                 s.opts.GuildID,
		"name":               "Fake Guild",
		"icon":               nil,
		"owner_id":           GuildOwnerID,
		"afk_channel_id":     nil,
		"afk_timeout":        300,
		"verification_level": 0,
		"roles":              s.rolesLocked(token),
		"emojis":             []any{},
		"features":           []string{},
		"mfa_level":          0,
		"system_channel_id":  nil,
		"premium_tier":       0,
		"preferred_locale":   "en-US",
		"nsfw_level":         0,
	}
}

// rolesLocked are the guild's roles as the caller sees them: @everyone and
// the managed role of every bot listed in Options.Tokens and the caller's.
func (s *Server) rolesLocked(caller string) []map[string]any {
	roles := []map[string]any{role(s.opts.GuildID, "@everyone", 0, everyonePermissions, nil)}
	tokens := slices.Clone(s.opts.Tokens)
	if !slices.Contains(tokens, caller) {
		tokens = append(tokens, caller)
	}
	for i, token := range tokens {
		roles = append(roles, role(BotRoleID(token), botUsername(token), i+1, BotPermissions, map[string]any{"bot_id": BotUserID(token)}))
	}
	return roles
}

// role is a role object; permissions go as a decimal string, as Discord
// sends them since API v8.
func role(id, name string, position int, perms int64, tags map[string]any) map[string]any {
	r := map[string]any{
		"id": id, "name": name, "color": 0, "hoist": false, "icon": nil, "unicode_emoji": nil,
		"position": position, "permissions": strconv.FormatInt(perms, 10),
		"managed": tags != nil, "mentionable": false, "flags": 0,
	}
	if tags != nil {
		r["tags"] = tags
	}
	return r
}

// getGuildMember is GET /guilds/{gid}/members/{uid}: a bot's member has its
// managed role, anyone else none. Members carry no guild_id here, as on
// Discord.
func (s *Server) getGuildMember(r *http.Request, token string) (int, any) {
	if r.PathValue("gid") != s.opts.GuildID {
		return http.StatusNotFound, apiError(codeUnknownGuild, "Unknown Guild")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	user, roles, ok := s.memberLocked(token, r.PathValue("uid"))
	if !ok {
		return http.StatusNotFound, apiError(codeUnknownMember, "Unknown Member")
	}
	return http.StatusOK, map[string]any{
		"user": user, "nick": nil, "avatar": nil, "roles": roles,
		"joined_at": joinedAt.Format(time.RFC3339Nano), "premium_since": nil,
		"deaf": false, "mute": false, "flags": 0, "pending": false,
		"communication_disabled_until": nil,
	}
}

// memberLocked finds a member: the caller's bot, a listed token's, one
// on the gateway, or a user who wrote in the guild.
func (s *Server) memberLocked(caller, uid string) (apiUser, []string, bool) {
	tokens := append([]string{caller}, s.opts.Tokens...)
	for _, ss := range s.sessions {
		tokens = append(tokens, ss.token)
	}
	for _, token := range tokens {
		if BotUserID(token) == uid {
			return botUser(token), []string{BotRoleID(token)}, true
		}
	}
	for _, m := range s.messages {
		if m.AuthorID == uid {
			return s.userLocked(uid), []string{}, true
		}
	}
	return apiUser{}, nil, false
}
