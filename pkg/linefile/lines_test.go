package linefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func collect(t *testing.T, s *splitter, chunks ...string) []Line {
	t.Helper()
	var out []Line
	emit := func(l Line) error { out = append(out, l); return nil }
	for _, c := range chunks {
		if err := s.feed([]byte(c), emit); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.flush(emit); err != nil {
		t.Fatal(err)
	}
	return out
}

func render(ls []Line) string {
	var b strings.Builder
	for _, l := range ls {
		b.Write(l.Text)
		if l.Truncated {
			b.WriteString("~")
		}
		b.WriteString("|")
	}
	return b.String()
}

// Lines are cut at newlines across chunks, capped at the limit with the rest
// of an overlong line dropped, and a last line without a newline is flushed.
func TestSplitter(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"one chunk", []string{"a\nbb\n"}, "a|bb|"},
		{"split across chunks", []string{"a", "b\nc", "d\n"}, "ab|cd|"},
		{"empty lines kept", []string{"\n\nx\n"}, "||x|"},
		{"last line without newline", []string{"a\nrest"}, "a|rest|"},
		{"overlong line capped, rest dropped", []string{"0123456789abc\nok\n"}, "01234567~|ok|"},
		{"overlong across chunks", []string{"0123", "4567", "89", "ab\nok"}, "01234567~|ok|"},
		{"exactly the cap", []string{"01234567\n"}, "01234567|"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &splitter{max: 8}
			if got := render(collect(t, s, c.chunks...)); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func writeTemp(t *testing.T, content string) *os.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f, _, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Reading from an offset inside a line starts at the next whole line; the
// end returned is just past the last newline.
func TestReadLinesFromOffset(t *testing.T) {
	const content = "first\nsecond\nthird\npart"
	f := writeTemp(t, content)
	for _, c := range []struct {
		from    int64
		partial bool
		want    string
	}{
		{0, false, "first|second|third|"},
		{0, true, "first|second|third|part|"},
		{3, false, "second|third|"},
		{6, false, "second|third|"}, // exactly at a line's start
		{7, false, "third|"},
	} {
		var got []Line
		end, err := ReadLines(f, c.from, int64(len(content)), 64, c.partial, func(l Line) error { got = append(got, l); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if render(got) != c.want {
			t.Errorf("from %d partial %v: %q, want %q", c.from, c.partial, render(got), c.want)
		}
		if want := int64(strings.LastIndex(content, "\n") + 1); end != want {
			t.Errorf("from %d: end %d, want %d", c.from, end, want)
		}
	}
}

func TestTail(t *testing.T) {
	f := writeTemp(t, "1\n2\n3\n4\n5\n")
	for _, c := range []struct {
		n      int
		window int64
		want   string
	}{
		{2, 1 << 20, "4|5|"},
		{10, 1 << 20, "1|2|3|4|5|"},
		{0, 1 << 20, ""},
		{10, 5, "4|5|"}, // the window starts inside "3\n": that line is skipped
	} {
		got, _, err := Tail(f, 10, c.n, c.window, 64, true)
		if err != nil {
			t.Fatal(err)
		}
		if render(got) != c.want {
			t.Errorf("Tail(%d, window %d) = %q, want %q", c.n, c.window, render(got), c.want)
		}
	}
}

// A symbolic link is not followed and a FIFO is not opened for reading
// (which would block): both are refused with a message saying what they are.
func TestOpenRefusesSymlinkAndFIFO(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Open(symlink) = %v, want a refusal naming the symbolic link", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(fifo); err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("Open(fifo) = %v, want a refusal naming the FIFO", err)
	}
	if _, _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("Open(dir) = %v, want a refusal naming the directory", err)
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\twith a tab":     "plain text\twith a tab",
		"red \x1b[31mtext":           `red \x1b[31mtext`,
		"hidden\rshown":              `hidden\rshown`,
		"two\nlines":                 `two\nlines`,
		"bidi \u202eesrever":         `bidi \u202eesrever`,
		"bad \xff byte":              `bad \xff byte`,
		"ünïcode is fine 👀":          "ünïcode is fine 👀",
		"del \x7f and c1 \u009b end": `del \x7f and c1 \u009b end`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
