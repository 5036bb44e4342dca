package faketelegram

import (
	"regexp"
	"strconv"
	"strings"
)

// DefaultToken is the bot token a fake accepts unless Options.Token says
// another: the shape BotFather issues, "<bot id>:<35 characters>".
const DefaultToken = "7000000001:AAFakeTokenFakeTokenFakeTokenFake00"

// DefaultBotUsername is the bot's username unless Options.BotUsername says another.
const DefaultBotUsername = "fakerelay_bot"

// tokenShape is what the service takes for a token at all: a bot id (no
// leading zero) and a secret. Anything else is refused before any bot is
// looked at ("Unauthorized: invalid token specified").
var tokenShape = regexp.MustCompile(`^[1-9][0-9]{0,19}:[A-Za-z0-9_-]{35}$`)

// ValidToken says whether s has the shape of a bot token.
func ValidToken(s string) bool { return tokenShape.MatchString(s) }

// botID is the bot's user id, the digits before the colon (0 for a token
// of another shape).
func botID(token string) int64 {
	id, _, _ := strings.Cut(token, ":")
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return 0
	}
	return n
}
