package relay

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// spread cuts parts into n, splitting the longest part in two until there
// are n (or no part has two characters to split): an edit with fewer
// parts than the message it replaces then still reaches every part of
// it. Each part only gets shorter, so each stays within the limit; the
// cut is deterministic, so a retry edits with the same texts.
func spread(parts []string, n int) []string {
	out := append([]string(nil), parts...)
	for len(out) < n {
		longest := 0
		for i, p := range out {
			if utf8.RuneCountInString(p) > utf8.RuneCountInString(out[longest]) {
				longest = i
			}
		}
		a, b, ok := halve(out[longest])
		if !ok {
			break
		}
		out = append(out[:longest+1], out[longest:]...)
		out[longest], out[longest+1] = a, b
	}
	return out
}

// halve cuts s near its middle: at the line break nearest it, else the
// space nearest it, else at the middle character.
func halve(s string) (string, string, bool) {
	if utf8.RuneCountInString(s) < 2 {
		return "", "", false
	}
	mid := len(s) / 2
	for !utf8.RuneStart(s[mid]) {
		mid--
	}
	for _, isCut := range []func(rune) bool{func(r rune) bool { return r == '\n' }, unicode.IsSpace} {
		best := -1
		for i, r := range s {
			if isCut(r) && (best < 0 || abs(i-mid) < abs(best-mid)) {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		a, b := strings.TrimRightFunc(s[:best], unicode.IsSpace), strings.TrimLeftFunc(s[best:], unicode.IsSpace)
		if a != "" && b != "" {
			return a, b, true
		}
	}
	if mid == 0 {
		_, mid = utf8.DecodeRuneInString(s)
	}
	return s[:mid], s[mid:], true
}

func abs(n int) int { return max(n, -n) }
