package relay

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"gjc.dev/reconciler/pkg/bus"
)

func TestSplit(t *testing.T) {
	long := strings.Repeat("x", 70)
	cases := []struct {
		name  string
		text  string
		limit int
		want  []string
	}{
		{"empty", "", 10, nil},
		{"white space only", " \n\t\n ", 10, nil},
		{"fits, trimmed", "  hello world \n", 20, []string{"hello world"}},
		{"exactly the limit", "abcd", 4, []string{"abcd"}},
		{"counts code points, not bytes", "ééééé", 5, []string{"ééééé"}},
		{"blank line before line break", "aaa\n\nbbb\nccc ddd", 12, []string{"aaa", "bbb\nccc ddd"}},
		{"last blank line that fits", "a\n\nb\n\ncccc\n\nd", 9, []string{"a\n\nb", "cccc\n\nd"}},
		{"line break before space", "aaa bbb\nccc ddd", 12, []string{"aaa bbb", "ccc ddd"}},
		{"space before hard cut", "aaa bbb ccc", 8, []string{"aaa bbb", "ccc"}},
		{"no cut at a no-break space", "aa bb\u00a0cc", 6, []string{"aa", "bb\u00a0cc"}},
		{"separator consumed once", "a b", 2, []string{"a", "b"}},
		{"runs of white space are not parts", "aaa   \n\n\n   bbb", 4, []string{"aaa", "bbb"}},
		{"hard cut of a long word", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"hard cut keeps a combining mark", "aaae\u0301bbb", 4, []string{"aaa", "e\u0301bb", "b"}},
		{"hard cut keeps a ZWJ sequence", "ab👩\u200d💻cd", 4, []string{"ab", "👩\u200d💻c", "d"}},
		{"CRLF is a line break", "aaa\r\n\r\nbbb", 5, []string{"aaa", "bbb"}},
		{"limit 1", "ab c", 1, []string{"a", "b", "c"}},
		{
			"fence cut is closed and reopened with its language",
			"intro\n```go\n" + long + "\n" + long + "\n```\nafter",
			90,
			[]string{"intro\n```go\n" + long + "\n```", "```go\n" + long + "\n```\nafter"},
		},
		{
			"no cut right after an opening fence line",
			"intro\n```go\n" + long + "\n" + long + "\n```",
			80,
			[]string{"intro", "```go\n" + long + "\n```", "```go\n" + long + "\n```"},
		},
		{
			"no cut right before a closing fence line",
			"```\n" + long + "\n\n```\n" + long,
			100,
			[]string{"```\n" + long + "\n\n```", long},
		},
		{
			"fence closed before the cut needs nothing",
			"```\nabc\n```\n" + long,
			80,
			[]string{"```\nabc\n```", long},
		},
		{
			"a one-line fence opens nothing",
			"```x``` " + long + "\n" + long,
			80,
			[]string{"```x``` " + long, long},
		},
		{
			"indentation after a reopened fence is kept",
			"```py\n" + long + "\n    " + long,
			80,
			[]string{"```py\n" + long + "\n```", "```py\n    " + long},
		},
		{
			"a long info string reopens a plain fence",
			"```" + strings.Repeat("l", 33) + "\n" + long + "\n" + long,
			120,
			[]string{"```" + strings.Repeat("l", 33) + "\n" + long + "\n```", "```\n" + long},
		},
		{
			"below minFenceLimit fences are plain text",
			"```go\naaaa bbbb\ncccc\n```",
			12,
			[]string{"```go", "aaaa bbbb", "cccc\n```"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Split(c.text, c.limit)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Split(%q, %d)\n got %q\nwant %q", c.text, c.limit, got, c.want)
			}
			checkSplit(t, c.text, c.limit)
		})
	}
}

// TestSplitFenceCloserCounts: the closer is what pushes the cut back; a
// split that forgot to count it would make a part of limit+4.
func TestSplitFenceCloserCounts(t *testing.T) {
	// The line break right at the limit would fit without the closer.
	text := "```\n" + strings.Repeat("a", 30) + "\n" + strings.Repeat("b", 29) + "\n" + strings.Repeat("c", 10)
	got := Split(text, 64)
	for _, p := range got {
		if n := utf8.RuneCountInString(p); n > 64 {
			t.Errorf("part of %d code points: %q", n, p)
		}
	}
	want := []string{"```\n" + strings.Repeat("a", 30) + "\n```", "```\n" + strings.Repeat("b", 29) + "\n" + strings.Repeat("c", 10)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestSplitBelowOnePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Split with limit 0 did not panic")
		}
	}()
	Split("x", 0)
}

func TestSplitLargeText(t *testing.T) {
	var b strings.Builder
	for b.Len() < 1<<20 {
		b.WriteString("para ")
		b.WriteString(strings.Repeat("word ", 50))
		b.WriteString("\n```go\nfunc f() {}\n" + strings.Repeat("x := 1\n", 300) + "```\n\n")
	}
	for _, limit := range []int{2000, 3900} {
		checkSplit(t, b.String(), limit)
	}
}

// checkSplit asserts the properties every split has: each part non-empty,
// not only white space, at most limit code points, valid UTF-8; the same
// parts each time; an added closer followed by an added reopening; and,
// the added fence lines taken off, the non-space characters of the parts
// in order are those of the text.
func checkSplit(t *testing.T, text string, limit int) {
	t.Helper()
	pieces := split(text, limit)
	if again := split(text, limit); !reflect.DeepEqual(pieces, again) {
		t.Fatalf("not deterministic: %+v then %+v", pieces, again)
	}
	var got strings.Builder
	for k, p := range pieces {
		if strings.TrimSpace(p.text) == "" {
			t.Fatalf("part %d is empty or white space: %q", k, p.text)
		}
		if n := utf8.RuneCountInString(p.text); n > limit {
			t.Fatalf("part %d has %d code points, limit %d: %q", k, n, limit, p.text)
		}
		if !utf8.ValidString(p.text) {
			t.Fatalf("part %d is not valid UTF-8: %q", k, p.text)
		}
		if k > 0 && p.reopened != pieces[k-1].closed {
			t.Fatalf("part %d reopened=%v after part %d closed=%v", k, p.reopened, k-1, pieces[k-1].closed)
		}
		body := p.text
		if p.closed {
			if !strings.HasSuffix(body, fenceCloser) {
				t.Fatalf("part %d marked closed does not end with a fence: %q", k, body)
			}
			body = strings.TrimSuffix(body, fenceCloser)
		}
		if p.reopened {
			first, rest, ok := strings.Cut(body, "\n")
			if !ok || !strings.HasPrefix(first, fenceMark) {
				t.Fatalf("part %d marked reopened does not start with a fence line: %q", k, body)
			}
			body = rest
		}
		got.WriteString(nonSpace(body))
	}
	if want := nonSpace(string([]rune(text))); got.String() != want {
		t.Fatalf("characters lost or doubled:\n got %q\nwant %q", got.String(), want)
	}
	if len(pieces) > 0 && !reflect.DeepEqual(Split(text, limit), texts(pieces)) {
		t.Fatal("Split and split disagree")
	}
}

func texts(ps []piece) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.text
	}
	return out
}

func nonSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// BenchmarkSplit: the largest text an outbox file may hold, at Discord's
// limit.
func BenchmarkSplit(b *testing.B) {
	var s strings.Builder
	for s.Len() < bus.MaxTextSize-1000 {
		s.WriteString("A paragraph of words, " + strings.Repeat("and more words ", 40) + "\n\n```go\n" + strings.Repeat("x := f(y)\n", 50) + "```\n\n")
	}
	text := s.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Split(text, 2000)
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("hello world", uint16(5))
	f.Add("a\n\nb\nc d", uint16(3))
	f.Add("```go\n"+strings.Repeat("code line\n", 20)+"```\ntail", uint16(64))
	f.Add("```\n    indented "+strings.Repeat("y", 100)+"\n```", uint16(70))
	f.Add("e\u0301e\u0301e\u0301 👩\u200d💻👩\u200d💻 🇫🇷🇫🇷", uint16(2))
	f.Add(strings.Repeat("```\n", 40), uint16(64))
	f.Fuzz(func(t *testing.T, text string, l uint16) {
		checkSplit(t, text, 1+int(l)%300)
	})
}
