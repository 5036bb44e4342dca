package telegram

import "strings"

// PartLimit is the longest part posted: the Bot API's 4,096 characters
// of a message's text. Mention safety (safeText) keeps the length.
const PartLimit = 4096

// fullwidthAt stands in for an '@' that would start a mention.
const fullwidthAt = '＠'

// safeText is text as posted: plain (no parse mode, so nothing in it is
// markup), with every '@' that would start a mention replaced by a
// fullwidth at sign. The service detects mentions in plain text by
// itself, whatever entities a request carries (an explicit empty list is
// the same as none), and a "mention" entity notifies the user named; it
// looks for an ASCII '@' not preceded by a name character and followed
// by one, so replacing that '@' (and only that one: e-mail addresses keep
// theirs) makes sure agent text never pings anyone. The replacement is
// one character for one, so a part within PartLimit stays within it, and
// it is a pure function of the text, so the probe sends exactly what was
// posted.
func safeText(text string) string {
	if !strings.Contains(text, "@") {
		return text
	}
	rs := []rune(text)
	for i, r := range rs {
		if r != '@' {
			continue
		}
		startsName := i+1 < len(rs) && nameRune(rs[i+1])
		afterName := i > 0 && nameRune(rs[i-1])
		if startsName && !afterName {
			rs[i] = fullwidthAt
		}
	}
	return string(rs)
}

// nameRune is a character of a Telegram username.
func nameRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
