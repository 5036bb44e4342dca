package bus

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of an ask (DESIGN 5, "Decisions"). Five buttons fit one row on
// every service; a label of 40 fits every service's button; an ask id
// leaves room for its outcome's id (OutcomeID) under MaxIDLen.
const (
	MaxChoices     = 5
	MaxChoiceLen   = 40 // code points
	MaxAskIDLen    = MaxIDLen - len(outcomeSuffix)
	outcomeSuffix  = ".outcome"
	ChoiceExpired  = "expired"
	DefaultTimeout = time.Hour
	MaxAskTimeout  = 24 * time.Hour
)

// DefaultChoices are an ask's buttons when it names none.
var DefaultChoices = []string{"Approve", "Deny"}

// OutcomeID is the id of the message that edits ask id in place once it
// is decided: one per ask, so writing it again after a crash is the
// same message.
func OutcomeID(askID string) string { return askID + outcomeSuffix }

// validateAsk checks the fields only an ask has: present on an ask,
// absent on anything else.
func (m Message) validateAsk() []error {
	var errs []error
	bad := func(field, rule string) { errs = append(errs, &FieldError{Field: field, Rule: rule}) }
	if m.Event != EventAsk {
		if len(m.Choices) > 0 {
			bad("choices", "only an ask (event ask) has choices")
		}
		if m.ExpiresAt != "" {
			bad("expiresAt", "only an ask (event ask) has expiresAt")
		}
		return errs
	}
	if len(m.ID) > MaxAskIDLen {
		bad("id", "an ask's id is at most 56 bytes")
	}
	if m.Replaces != "" {
		bad("replaces", "an ask is a new question, it replaces nothing")
	}
	if strings.TrimSpace(m.Text) == "" {
		bad("text", "an ask needs the question's text")
	}
	if n := len(m.Choices); n == 0 || n > MaxChoices {
		bad("choices", "an ask has 1 to 5 choices")
	}
	seen := map[string]bool{}
	for _, c := range m.Choices {
		if rule := choiceRule(c); rule != "" {
			bad("choices", rule)
			continue
		}
		k := strings.ToLower(c)
		if seen[k] {
			bad("choices", "choice "+c+" is given twice")
		}
		seen[k] = true
	}
	if t, err := time.Parse(InboxTimeLayout, m.ExpiresAt); err != nil || InboxTime(t) != m.ExpiresAt {
		bad("expiresAt", "must be RFC 3339 UTC with milliseconds, like 2026-01-02T15:04:05.000Z")
	} else if t.UnixMilli() <= 0 {
		bad("expiresAt", "must be after 1970")
	}
	if !ValidInboxSession(m.Session) {
		// Its decision lands in the session's inbox directory.
		bad("session", "an ask's session must not start with a dot")
	}
	return errs
}

// choiceRule says what is wrong with a choice's label, "" if nothing.
func choiceRule(c string) string {
	switch {
	case !utf8.ValidString(c):
		return "a choice must be valid UTF-8"
	case strings.TrimSpace(c) != c || c == "":
		return "a choice must be non-empty, without leading or trailing space"
	case utf8.RuneCountInString(c) > MaxChoiceLen:
		return "a choice is at most 40 characters"
	case strings.EqualFold(c, ChoiceExpired):
		return `"expired" is what an undecided ask becomes; it cannot be a choice`
	case strings.IndexFunc(c, unicode.IsControl) >= 0:
		return "a choice must not hold control characters"
	}
	return ""
}

// ExpiresAtTime is an ask's expiresAt as a time (zero when it has none).
func (m Message) ExpiresAtTime() time.Time {
	t, _ := time.Parse(InboxTimeLayout, m.ExpiresAt)
	return t
}

// ChoiceData is the data of ask askID's button i: "<ask id>:<i>". An ask
// id is at most MaxAskIDLen bytes and i one digit, so it fits every
// service's limit (Telegram's callback_data: 64 bytes).
func ChoiceData(askID string, i int) string { return askID + ":" + strconv.Itoa(i) }

// ParseChoiceData is ChoiceData's inverse; ok is false for data no ask
// button carries (anything a click can bring is untrusted).
func ParseChoiceData(data string) (askID string, i int, ok bool) {
	askID, n, found := strings.Cut(data, ":")
	if !found || len(n) != 1 || n[0] < '0' || n[0] >= '0'+MaxChoices || !ValidID(askID) || len(askID) > MaxAskIDLen {
		return "", 0, false
	}
	return askID, int(n[0] - '0'), true
}
