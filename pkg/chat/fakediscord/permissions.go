package fakediscord

import (
	"maps"
	"net/http"
	"slices"
	"strconv"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// Discord's permission bits the fake knows by name.
const (
	PermAddReactions          int64 = 1 << 6
	PermViewChannel           int64 = 1 << 10
	PermSendMessages          int64 = 1 << 11
	PermReadMessageHistory    int64 = 1 << 16
	PermManageThreads         int64 = 1 << 34
	PermCreatePublicThreads   int64 = 1 << 35
	PermSendMessagesInThreads int64 = 1 << 38
)

// BotPermissions are the permissions every bot's role grants: exactly the
// seven the relay needs, the quickstart's invite integer 326417583168.
const BotPermissions = PermViewChannel | PermSendMessages | PermCreatePublicThreads |
	PermSendMessagesInThreads | PermManageThreads | PermAddReactions | PermReadMessageHistory

// everyonePermissions are @everyone's in the fake guild: none the relay
// needs (Create Invite and Change Nickname), so a bot has what its own
// role grants and its channel overwrites leave it.
const everyonePermissions int64 = 1<<0 | 1<<26

// SetPermission takes one of a bot token's permissions away (allowed
// false) or gives it back. The bot's role keeps BotPermissions; what is
// taken away is denied by an overwrite for that role on every text
// channel, which channels carry in permission_overwrites, as when an
// admin denies it in the channel's settings. This is the fake's one truth
// about permissions: View Channel gates GET /channels/{id} (403 Missing
// Access) and Manage Threads gates locking a thread (403 Missing
// Permissions; archiving the bot's own thread is still allowed).
func (s *Server) SetPermission(token string, perm int64, allowed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if allowed {
		s.faults.denied[token] &^= perm
	} else {
		s.faults.denied[token] |= perm
	}
	if s.faults.denied[token] == 0 {
		delete(s.faults.denied, token)
	}
}

// hasLocked says whether a bot token has perm in the fake's channels.
func (s *Server) hasLocked(token string, perm int64) bool {
	return (BotPermissions|everyonePermissions)&^s.faults.denied[token]&perm == perm
}

// BotRoleID is the ID of the role Discord makes for a bot invited with
// permissions (managed, tagged with the bot's ID): stable per token and
// never a user's or the guild's ID.
func BotRoleID(token string) string {
	return strconv.FormatUint(1<<55|fakeserver.Hash(token)>>10, 10)
}

// overwritesLocked are a text channel's permission_overwrites: one deny
// for each bot role that SetPermission took something from.
func (s *Server) overwritesLocked() []map[string]any {
	out := []map[string]any{}
	for _, token := range slices.Sorted(maps.Keys(s.faults.denied)) {
		out = append(out, map[string]any{
			"id": BotRoleID(token), "type": overwriteRole,
			"allow": "0", "deny": strconv.FormatInt(s.faults.denied[token], 10),
		})
	}
	return out
}

// overwriteRole is a permission overwrite's type for a role (1 is a member).
const overwriteRole = 0

// codeMissingAccess is Discord's answer to a channel the bot cannot see.
const codeMissingAccess = 50001

// viewing refuses a channel that exists to a bot without View Channel,
// as Discord does: 403 Missing Access (an unknown one is still 404).
func (s *Server) viewing(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request, token string) {
		s.mu.Lock()
		_, exists := s.channelLocked(r.PathValue("cid"))
		hidden := exists && !s.hasLocked(token, PermViewChannel)
		s.mu.Unlock()
		if hidden {
			writeError(w, http.StatusForbidden, codeMissingAccess, "Missing Access")
			return
		}
		h(w, r, token)
	}
}
