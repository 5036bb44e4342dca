package faketelegram

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
)

// findEntities returns the entities the service finds in a text by
// itself, whatever parse mode or entities the client sent: a bot's plain
// "@name" becomes a mention. The rules of mention, hashtag, cashtag and
// bot_command are tdlib's (td/telegram/MessageEntity.cpp, which the Bot API
// server runs); url and email are simpler (urls.go): a URL with a
// scheme or "www.", or a bare domain under a TLD of the list there (so
// "README.md" is a link, as on the service); an email needs a dotted
// domain. Phone numbers and bank cards are not found. Overlaps keep the
// earlier one.
func findEntities(text string) []Entity {
	r := []rune(text)
	off := utf16Offsets(r)
	var found []Entity
	add := func(typ string, i, j int) {
		found = append(found, Entity{Type: typ, Offset: off[i], Length: off[j] - off[i]})
	}
	for i, c := range r {
		var j int
		var typ string
		switch c {
		case '@':
			j, typ = matchMention(r, i), "mention"
		case '#':
			j, typ = matchHashtag(r, i), "hashtag"
		case '$':
			j, typ = matchCashtag(r, i), "cashtag"
		case '/':
			j, typ = matchBotCommand(r, i), "bot_command"
		default:
			if j = matchURL(r, i); j > 0 {
				typ = "url"
			} else if j = matchEmail(r, i); j > 0 {
				typ = "email"
			} else if j = matchDomain(r, i); j > 0 {
				typ = "url"
			}
		}
		if j > 0 {
			add(typ, i, j)
		}
	}
	return dropOverlaps(found)
}

// mergeEntities adds the found entities that overlap none of those sent.
func mergeEntities(sent, found []Entity) []Entity {
	out := slices.Clone(sent)
	for _, f := range found {
		if !slices.ContainsFunc(sent, func(e Entity) bool { return overlap(e, f) }) {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b Entity) int { return a.Offset - b.Offset })
	return out
}

func overlap(a, b Entity) bool {
	return a.Offset < b.Offset+b.Length && b.Offset < a.Offset+a.Length
}

func dropOverlaps(es []Entity) []Entity {
	slices.SortStableFunc(es, func(a, b Entity) int { return a.Offset - b.Offset })
	var out []Entity
	for _, e := range es {
		if len(out) == 0 || !overlap(out[len(out)-1], e) {
			out = append(out, e)
		}
	}
	return out
}

// utf16Offsets maps each rune index (and the end) to its UTF-16 offset:
// entities count UTF-16 code units.
func utf16Offsets(r []rune) []int {
	off := make([]int, len(r)+1)
	for i, c := range r {
		n := 1
		if c > 0xFFFF {
			n = 2
		}
		off[i+1] = off[i] + n
	}
	return off
}

// utf16Slice is the part of s an entity's offset and length (UTF-16
// code units) name.
func utf16Slice(s string, offset, length int) string {
	u := utf16.Encode([]rune(s))
	if offset < 0 || length < 0 || offset+length > len(u) {
		return ""
	}
	return string(utf16.Decode(u[offset : offset+length]))
}

// utf16Len is a text's length in UTF-16 code units.
func utf16Len(s string) int { r := []rune(s); return utf16Offsets(r)[len(r)] }

// isWordChar is tdlib's: a letter, a number or '_'.
func isWordChar(c rune) bool { return unicode.IsLetter(c) || unicode.IsNumber(c) || c == '_' }

func isASCIIWord(c rune) bool {
	return c < 0x80 && (c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'))
}

func before(r []rune, i int) rune {
	if i == 0 {
		return 0
	}
	return r[i-1]
}

func at(r []rune, i int) rune {
	if i >= len(r) {
		return 0
	}
	return r[i]
}

// run returns the end of the run of runes from i that ok accepts.
func run(r []rune, i int, ok func(rune) bool) int {
	for i < len(r) && ok(r[i]) {
		i++
	}
	return i
}

// matchMention: "@" not after a word character, 2-32 of [A-Za-z0-9_] not
// followed by one; a name shorter than 4 only if it is gif, vid or pic.
// Returns the end, or 0.
func matchMention(r []rune, i int) int {
	if isWordChar(before(r, i)) {
		return 0
	}
	j := run(r, i+1, isASCIIWord)
	name := strings.ToLower(string(r[i+1 : j]))
	if n := j - i - 1; n < 2 || n > 32 || isWordChar(at(r, j)) {
		return 0
	}
	if len(name) < 4 && name != "gif" && name != "vid" && name != "pic" {
		return 0
	}
	return j
}

func isHashtagLetter(c rune) bool {
	return c == '_' || c == 0x200c || c == 0xb7 || (0xd80 <= c && c <= 0xdff) || unicode.IsLetter(c) || unicode.IsDigit(c)
}

// matchHashtag: "#" not after a hashtag letter, 1-256 hashtag letters
// with at least one letter, not followed by "#".
func matchHashtag(r []rune, i int) int {
	if isHashtagLetter(before(r, i)) {
		return 0
	}
	j := run(r, i+1, isHashtagLetter)
	if j == i+1 || at(r, j) == '#' || !slices.ContainsFunc(r[i+1:j], unicode.IsLetter) {
		return 0
	}
	return min(j, i+1+256)
}

// matchCashtag: "$" not after a hashtag letter or "$", then 1INCH or 1-8
// capitals, not followed by a hashtag letter or "$".
func matchCashtag(r []rune, i int) int {
	if p := before(r, i); isHashtagLetter(p) || p == '$' {
		return 0
	}
	j := i + 1
	if strings.HasPrefix(string(r[j:min(len(r), j+5)]), "1INCH") {
		j += 5
	} else {
		j = run(r, j, func(c rune) bool { return 'A' <= c && c <= 'Z' })
	}
	if n := j - i - 1; n < 1 || n > 8 {
		return 0
	}
	if c := at(r, j); isHashtagLetter(c) || c == '$' {
		return 0
	}
	return j
}

// matchBotCommand: "/" not after a word character, "/", "<" or ">", 1-64
// of [A-Za-z0-9_], optionally "@" and a 3-32 character bot name, not
// followed by a word character, "/", "<" or ">".
func matchBotCommand(r []rune, i int) int {
	if p := before(r, i); isWordChar(p) || p == '/' || p == '<' || p == '>' {
		return 0
	}
	j := run(r, i+1, isASCIIWord)
	if n := j - i - 1; n < 1 || n > 64 {
		return 0
	}
	if at(r, j) == '@' {
		k := run(r, j+1, isASCIIWord)
		if n := k - j - 1; n < 3 || n > 32 {
			return 0
		}
		j = k
	}
	if c := at(r, j); isWordChar(c) || c == '/' || c == '<' || c == '>' {
		return 0
	}
	return j
}

func isEmailLocal(c rune) bool { return isASCIIWord(c) || strings.ContainsRune(".%+-", c) }

func isDomain(c rune) bool { return isASCIIWord(c) && c != '_' || c == '-' || c == '.' }

// matchEmail: local@domain.tld starting at a word start.
func matchEmail(r []rune, i int) int {
	if !isASCIIWord(r[i]) || isEmailLocal(before(r, i)) {
		return 0
	}
	sign := run(r, i, isEmailLocal)
	if sign >= len(r) || r[sign] != '@' {
		return 0
	}
	j := run(r, sign+1, isDomain)
	for j > sign+1 && r[j-1] == '.' {
		j--
	}
	domain := string(r[sign+1 : j])
	dot := strings.LastIndexByte(domain, '.')
	if dot <= 0 || len(domain)-dot-1 < 2 {
		return 0
	}
	return j
}
