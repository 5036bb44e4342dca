package relay

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Fence repair needs room: a reopening line of up to maxLangLen+3 code
// points, its newline and a closing "\n```". Under minFenceLimit a part
// could be mostly fence lines, so fences are then split as plain text
// (the services' limits are 2,000 and 3,900; only tests go this low).
const (
	minFenceLimit = 64
	maxLangLen    = 32
	fenceMark     = "```"
	fenceCloser   = "\n" + fenceMark
)

// Split cuts text into parts of at most limit Unicode code points each, as
// DESIGN 5 asks, deterministically: the relay renders a message again
// after a crash and must get the same parts, since each part is its own
// journal entry.
//
//   - A cut prefers the last blank line ("\n\n") that fits, then the last
//     line break, then the last white space (not a no-break space); the
//     separator is consumed, never repeated. A cut by a line break does
//     not leave an empty code block (right after a fence's opening line,
//     or right before its closing line). A word longer than a part is cut
//     hard, at a code point, and backs off a few code points so as not to
//     split a base from its combining marks or an emoji ZWJ sequence.
//     Invalid UTF-8 reads as U+FFFD.
//   - Parts are trimmed of white space at both ends (the services trim
//     it, and the relay's content lookup compares the exact text), except
//     that the indentation of the first line after a reopened fence is
//     kept: it is code. White-space-only parts are dropped; an empty or
//     white-space-only text gives no parts. "\r\n" is read as "\n".
//   - Code fences: a line starting with ``` (after any indentation)
//     opens a fence, unless it also closes it on the same line; while one
//     is open, the next line starting with ``` closes it. A part that ends
//     inside a fence gets a closing "```" line, and the next part starts
//     with "```" plus the opening line's language (its info string's first
//     word, if at most 32 code points). These added lines count toward
//     limit. "~~~" fences are not recognised.
//
// limit comes from Poster.PartLimit; Split panics when it is below 1.
func Split(text string, limit int) []string {
	pieces := split(text, limit)
	if len(pieces) == 0 {
		return nil
	}
	out := make([]string, len(pieces))
	for i, p := range pieces {
		out[i] = p.text
	}
	return out
}

// piece is one part with what Split added to it, so that tests can take
// the added fence lines off exactly.
type piece struct {
	text     string
	reopened bool // text starts with an added fence line and its newline
	closed   bool // text ends with an added fenceCloser
}

// fences is the fence state of every line of a text.
type fences struct {
	ends []int // rune index where line j ends (its '\n', or len)
	// after[j] is the index of the line whose opening fence is still open
	// after line j, or -1 when none is.
	after []int
	lines []string
	fence []bool // line j starts with ```
	// content[j] is the first line after j that is not blank, or
	// len(lines): precomputed, so that tidy stays cheap on long runs of
	// blank lines.
	content []int
}

func scanFences(r []rune) fences {
	var f fences
	open := -1
	start := 0
	for i := 0; i <= len(r); i++ {
		if i < len(r) && r[i] != '\n' {
			continue
		}
		line := string(r[start:i])
		j := len(f.ends)
		trimmed := strings.TrimLeft(line, " \t")
		isFence := strings.HasPrefix(trimmed, fenceMark)
		if isFence {
			switch {
			case open >= 0:
				open = -1
			case !strings.Contains(trimmed[len(fenceMark):], fenceMark):
				open = j
			}
		}
		f.ends = append(f.ends, i)
		f.after = append(f.after, open)
		f.lines = append(f.lines, line)
		f.fence = append(f.fence, isFence)
		start = i + 1
	}
	f.content = make([]int, len(f.lines))
	next := len(f.lines)
	for j := len(f.lines) - 1; j >= 0; j-- {
		f.content[j] = next
		if strings.TrimSpace(f.lines[j]) != "" {
			next = j
		}
	}
	return f
}

// openAt is the line whose fence is open for a part whose content ends at
// rune index i (every line ending at or before i is in the part), -1 when
// none is.
func (f fences) openAt(i int) int {
	// The first line ending after i is not complete in the part.
	j := sort.Search(len(f.ends), func(k int) bool { return f.ends[k] > i })
	if j == 0 {
		return -1
	}
	return f.after[j-1]
}

// tidy reports whether a cut at the line break at i leaves no empty code
// block behind: not right after the line opening a fence (the part would
// end "```go\n```"), nor right before the line closing one, blank lines between (the next part
// would start "```go\n```"). A cut elsewhere than a line end is tidy.
func (f fences) tidy(i int) bool {
	j := sort.SearchInts(f.ends, i)
	if j == len(f.ends) || f.ends[j] != i || f.after[j] < 0 {
		return true
	}
	if f.after[j] == j {
		return false
	}
	k := f.content[j]
	return k == len(f.lines) || !f.fence[k]
}

// reopenLine is the line that starts a part inside the fence opened by
// line j.
func (f fences) reopenLine(j int) string {
	info := strings.TrimLeft(strings.TrimLeft(f.lines[j], " \t"), "`")
	fields := strings.Fields(info)
	if len(fields) == 0 || len([]rune(fields[0])) > maxLangLen {
		return fenceMark
	}
	return fenceMark + fields[0]
}

func split(text string, limit int) []piece {
	if limit < 1 {
		panic(fmt.Sprintf("relay.Split: limit %d is below 1", limit))
	}
	r := []rune(strings.ReplaceAll(text, "\r\n", "\n"))
	end := len(r)
	for end > 0 && unicode.IsSpace(r[end-1]) {
		end--
	}
	var f fences
	repair := limit >= minFenceLimit
	if repair {
		f = scanFences(r[:end])
	}
	var out []piece
	pos, open := 0, -1
	for {
		prefix := ""
		if open >= 0 {
			prefix = f.reopenLine(open) + "\n"
			pos = skipBlankLines(r, pos, end)
		} else {
			pos = skipSpace(r, pos, end)
		}
		if pos >= end {
			return out
		}
		room := limit - len([]rune(prefix))
		if end-pos <= room {
			return append(out, piece{text: prefix + string(r[pos:end]), reopened: prefix != ""})
		}
		// fits reports whether content r[pos:i] fits with the closer
		// a fence open at i needs.
		fits := func(i int) bool {
			if repair && f.openAt(i) >= 0 {
				return i-pos <= room-len(fenceCloser)
			}
			return i-pos <= room
		}
		first := skipSpace(r, pos, end) // content must reach past it
		tidy := func(i int) bool { return !repair || f.tidy(i) }
		cut, next := findCut(r, pos, first, pos+room, end, fits, tidy)
		content := strings.TrimRightFunc(string(r[pos:cut]), unicode.IsSpace)
		closing := -1
		if repair {
			closing = f.openAt(cut)
		}
		if strings.TrimSpace(content) != "" {
			p := piece{text: prefix + content, reopened: prefix != ""}
			if closing >= 0 {
				p.text += fenceCloser
				p.closed = true
			}
			out = append(out, p)
		}
		pos, open = next, closing
	}
}

// findCut picks where a part ends: content r[..cut], the next part from
// next. The part starts at pos, its first non-space is at first.
// Candidates lie in (first, max]; fits says whether one is short
// enough, given the fence closer it may need; a blank line or line break
// must also be tidy, else the cut falls to the next kind (white space,
// where a line break that is not tidy still counts).
func findCut(r []rune, pos, first, max, end int, fits, tidy func(int) bool) (cut, next int) {
	if max > end {
		max = end
	}
	for i := max; i > first; i-- { // a blank line
		if i+1 < end && r[i] == '\n' && r[i+1] == '\n' && fits(i) && tidy(i) {
			return i, i + 2
		}
	}
	for i := max; i > first; i-- { // a line break
		if i < end && r[i] == '\n' && fits(i) && tidy(i) {
			return i, i + 1
		}
	}
	for i := max; i > first; i-- { // white space
		if i < end && breakable(r[i]) && fits(i) {
			return i, i + 1
		}
	}
	// A hard cut. Its lower bound is pos+1, not first+1: deep indentation
	// inside a fence may leave no room at all, and the part must still fit
	// (it is then white space only, and dropped).
	i := max
	for i > pos+1 && !fits(i) {
		i--
	}
	if i > first+1 {
		i = graphemeSafe(r, first, i)
	}
	return i, i
}

// graphemeSafe moves a hard cut at i back, a few code points at most, so
// that it does not fall between a base and a combining mark or inside an
// emoji sequence; a run too long for that is cut where it was.
func graphemeSafe(r []rune, first, i int) int {
	const maxBack = 16
	for j := i; j > first+1 && i-j < maxBack; j-- {
		if !joins(r[j-1], r[j]) {
			return j
		}
	}
	return i
}

// joins reports whether cur continues the character prev belongs to.
func joins(prev, cur rune) bool {
	const zwj = 0x200D
	switch {
	case prev == zwj || cur == zwj:
		return true
	case unicode.In(cur, unicode.Mn, unicode.Me, unicode.Mc):
		return true // combining marks, variation selectors
	case cur >= 0x1F3FB && cur <= 0x1F3FF:
		return true // skin tone modifiers
	case cur >= 0xE0020 && cur <= 0xE007F:
		return true // emoji tag sequences (subdivision flags)
	case isRegional(prev) && isRegional(cur):
		return true // a flag is two regional indicators
	}
	return false
}

// breakable reports whether a word cut may consume c: white space other
// than the no-break spaces, which say that the words around them belong
// together.
func breakable(c rune) bool {
	switch c {
	case '\u00A0', '\u2007', '\u202F':
		return false
	}
	return unicode.IsSpace(c)
}

func isRegional(c rune) bool { return c >= 0x1F1E6 && c <= 0x1F1FF }

func skipSpace(r []rune, pos, end int) int {
	for pos < end && unicode.IsSpace(r[pos]) {
		pos++
	}
	return pos
}

// skipBlankLines skips leading white space up to the start of the first
// line with content, keeping that line's indentation.
func skipBlankLines(r []rune, pos, end int) int {
	j := skipSpace(r, pos, end)
	for k := j - 1; k >= pos; k-- {
		if r[k] == '\n' {
			return k + 1
		}
	}
	return pos
}
