package faketelegram

import (
	"strings"
	"unicode"
)

var urlStarts = []string{"https://", "http://", "ftp://", "tg://", "www."}

// matchURL: a scheme (or "www.") at a word start, then everything up to
// a space or one of <>"«», less trailing punctuation.
func matchURL(r []rune, i int) int {
	if isWordChar(before(r, i)) {
		return 0
	}
	rest := strings.ToLower(string(r[i:min(len(r), i+8)]))
	for _, p := range urlStarts {
		if strings.HasPrefix(rest, p) {
			return urlPathEnd(r, i+len([]rune(p)))
		}
	}
	return 0
}

// urlPathEnd is the end of a URL's rest from start: up to a space or one
// of <>"«», less trailing punctuation (".:;,('?!`"), as tdlib cuts it; 0
// when nothing is left.
func urlPathEnd(r []rune, start int) int {
	j := run(r, start, func(c rune) bool { return !unicode.IsSpace(c) && !strings.ContainsRune("<>\"«»", c) })
	for j > start && strings.ContainsRune(".:;,('?!`", r[j-1]) {
		j--
	}
	if j == start {
		return 0
	}
	return j
}

func isDomainChar(c rune) bool { return isASCIIWord(c) || c == '-' || c == '.' || c == '~' }

// matchDomain: a bare domain ("example.com", "README.md") not inside
// another word, address or path, whose last label is a TLD of the list
// below, then an optional path ("/", "?" or "#" on).
func matchDomain(r []rune, i int) int {
	if p := before(r, i); isDomainChar(p) || p == '@' || p == '/' || !isASCIIWord(r[i]) {
		return 0
	}
	j := run(r, i, isDomainChar)
	for j > i && r[j-1] == '.' {
		j--
	}
	if at(r, j) == '@' {
		return 0 // an email's user part
	}
	labels := strings.Split(string(r[i:j]), ".")
	if len(labels) < 2 || !isTLD(labels[len(labels)-1]) {
		return 0
	}
	for _, l := range labels {
		if l == "" {
			return 0
		}
	}
	if c := at(r, j); c == '/' || c == '?' || c == '#' {
		if end := urlPathEnd(r, j+1); end > 0 {
			return end
		}
	}
	return j
}

// isTLD says whether a label is a known TLD, in any case but
// Capitalized: "done.It works" is a sentence, not a link (tdlib's rule).
func isTLD(label string) bool {
	lower := strings.ToLower(label)
	if lower != label && len(label) > 1 && label[1:] == lower[1:] {
		return false
	}
	return knownTLD[lower]
}

// knownTLD is a part of the root zone the service links bare domains
// under (tdlib knows all of it): the usual ones, and those that look like
// the file extensions an agent writes, which is where a bare link
// surprises.
var knownTLD = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`
		com org net edu gov mil int info biz name pro app dev io ai co me tv cc ly so to gg xyz
		site online tech cloud blog shop page link zip mov java
		md sh py rs pl pm ms ps ws la ml sc am fm re im it in is at be by ch de eu fr uk us
		ru su ua nl se no dk fi es pt br jp cn kr au ca nz ir il tr gr cz hu sk ro bg rs hr si`) {
		knownTLD[t] = true
	}
}
