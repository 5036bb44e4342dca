package redact

import (
	"regexp"
	"strings"
)

// rule is one token shape: maybe is a cheap test that must pass before
// the pattern runs (the patterns are costly on long texts, and most texts
// hold no token), repl its replacement, which may keep group 1 ("${1}"
// at its start: the scheme word of an authorization, a webhook's host).
type rule struct {
	maybe   func(string) bool
	pattern *regexp.Regexp
	repl    string
}

// apply replaces every match of r in s. A text that holds anything
// normalized undoes is matched through its view, and each match is
// replaced in s itself: the token (from its first to its last
// character, whatever hides between) becomes the replacement, and the
// rest of s stays as it was, group 1 included.
// v, ok are normalized(s).
func (r rule) apply(s string, v view, ok bool) string {
	if !ok {
		if !r.maybe(s) {
			return s
		}
		return r.pattern.ReplaceAllString(s, r.repl)
	}
	if !r.maybe(v.text) {
		return s
	}
	matches := r.pattern.FindAllStringSubmatchIndex(v.text, -1)
	if len(matches) == 0 {
		return s
	}
	tail, keep := strings.CutPrefix(r.repl, "${1}")
	var b strings.Builder
	done := 0 // s[:done] is in b
	for _, m := range matches {
		start := m[0]
		if keep && m[3] > start {
			start = m[3]
		}
		if start >= m[1] {
			continue
		}
		// One character can stand for several view bytes ("ﬁ" is "fi"):
		// a match starting inside it takes it whole.
		from, to := max(v.from[start], done), v.to[m[1]-1]
		b.WriteString(s[done:from])
		b.WriteString(tail)
		done = to
	}
	b.WriteString(s[done:])
	return b.String()
}

// applyAll applies rules in order, each to what the one before left
// (its view made again only when a rule changed it). Each rule sees the
// view first (a token with invisible characters inside is found whole
// there, where a match in the text would stop at the first of them),
// then the text as written: a token that such a character only borders
// has its word boundary in the text, not in the view, where that
// character is gone or a letter.
func applyAll(rules []rule, s string) string {
	v, ok := normalized(s)
	for _, r := range rules {
		for _, viewed := range []bool{true, false} {
			if viewed && !ok {
				continue
			}
			if out := r.apply(s, v, viewed); out != s {
				s = out
				v, ok = normalized(s)
			}
		}
	}
	return s
}
