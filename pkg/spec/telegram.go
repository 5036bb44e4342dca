package spec

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// telegramToken is the shape BotFather issues: the bot's numeric id, a
// colon, and 35 characters of the URL-safe base64 alphabet. A token of
// another shape is answered 401 by the service forever; refusing it here
// says so before a daemon starts.
var telegramToken = regexp.MustCompile(`^[0-9]{1,20}:[A-Za-z0-9_-]{35}$`)

// TelegramTokenShape reports whether token has the shape BotFather issues.
func TelegramTokenShape(token string) bool { return telegramToken.MatchString(token) }

// supergroupID is a supergroup's chat id as the Bot API writes it: -100
// followed by the group's own id. Only a supergroup has forum topics and
// sequential message ids across the chat, which the outbound probe
// relies on; a basic group or a private chat is refused.
var supergroupID = regexp.MustCompile(`^-100[0-9]{1,13}$`)

func validateTelegram(t *TelegramSpec, p *field.Path) field.ErrorList {
	errs := validateSecretRef(t.BotToken, p.Child("botToken"))
	switch {
	case t.ChatID == "":
		errs = append(errs, field.Required(p.Child("chatId"), "a supergroup's id, -100..."))
	case !supergroupID.MatchString(t.ChatID):
		errs = append(errs, field.Invalid(p.Child("chatId"), t.ChatID, "must be a supergroup's id (-100 followed by digits): a basic group or a private chat has no topics and no sequential message ids"))
	}
	errs = append(errs, validateUserIDs(t.AuthorizedUserIDs, p.Child("authorizedUserIds"))...)
	for i, id := range t.AuthorizedUserIDs {
		if id != "" && !userID.MatchString(id) {
			errs = append(errs, field.Invalid(p.Child("authorizedUserIds").Index(i), id, "must be a Telegram user id (digits)"))
		}
	}
	errs = append(errs, validateAPIURL(t.APIURL, p.Child("apiURL"))...)
	errs = append(errs, validateMaxInboundFileBytes(t.MaxInboundFileBytes, p.Child("maxInboundFileBytes"))...)
	if n := t.PostsPerMinute; n != nil && (*n < 1 || *n > MaxPostsPerMinute) {
		errs = append(errs, field.Invalid(p.Child("postsPerMinute"), *n, fmt.Sprintf("must be between 1 and %d: the chat's posting budget (the service documents 20 a minute for a group)", MaxPostsPerMinute)))
	}
	return errs
}

const (
	// DefaultPostsPerMinute is telegram.postsPerMinute when the spec says
	// none: the service's documented budget for posting to a group.
	DefaultPostsPerMinute = 20
	// MaxPostsPerMinute bounds telegram.postsPerMinute: a thousand a
	// second, past any budget the service grants, for tests and fakes.
	MaxPostsPerMinute = 60000
)

// postsPerMinute is telegram.postsPerMinute resolved: the default when
// the spec (or an older reconciler's wire config) says none.
func postsPerMinute(n *int) int {
	if n == nil || *n == 0 {
		return DefaultPostsPerMinute
	}
	return *n
}

// userID is a Telegram user id: a positive integer.
var userID = regexp.MustCompile(`^[1-9][0-9]{0,19}$`)
