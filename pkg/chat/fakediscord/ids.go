package fakediscord

import (
	"strconv"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// discordEpoch is the zero of Discord snowflakes, 2015-01-01T00:00:00Z, in ms.
const discordEpoch = 1420070400000

// nextIDLocked returns a snowflake: creation time in the high bits, so a
// client's snowflake helpers give sensible timestamps, and strictly
// increasing, so history order and before/after comparisons hold.
func (s *Server) nextIDLocked() string {
	return strconv.FormatInt(s.ids.Next((time.Now().UnixMilli()-discordEpoch)<<22), 10)
}

// BotUserID is the user ID the fake gives a bot token: stable, so a test can
// predict the author of the bot's own messages.
func BotUserID(token string) string {
	// Keep it in the range of real snowflakes (positive int64, 17-19 digits).
	return strconv.FormatUint(1<<56|fakeserver.Hash(token)>>9, 10)
}

func botUsername(token string) string {
	id := BotUserID(token)
	return "fakebot-" + id[len(id)-4:]
}

// snowflakeLess orders two snowflakes; IDs that do not parse sort first.
func snowflakeLess(a, b string) bool {
	x, _ := strconv.ParseUint(a, 10, 64)
	y, _ := strconv.ParseUint(b, 10, 64)
	return x < y
}
