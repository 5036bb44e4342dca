// The checks that keep the documentation (README.md at the root and the
// Markdown files of this directory) standing on its own: every link
// resolves inside the repository, every page is reachable from the README,
// and every status reason the code can show is explained.
package docs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// link is one link target found in a Markdown file.
type link struct {
	Line   int
	Target string
}

var (
	fence      = regexp.MustCompile("^\\s{0,3}(```+|~~~+)")
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	refDef     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)`)
	autolink   = regexp.MustCompile(`<([A-Za-z][A-Za-z0-9+.-]*:[^>\s]*)>`)
	htmlRef    = regexp.MustCompile(`(?i)\b(?:href|src)\s*=\s*["']([^"']*)["']`)
	bareURL    = regexp.MustCompile(`(?i)\b(?:https?://|www\.)\S+`)
	scheme     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	heading    = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	headedLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// links returns every link target of a Markdown document outside code:
// inline links and images, reference definitions, autolinks, HTML href and
// src attributes, and bare URLs that a renderer would turn into links.
// Fenced code blocks and code spans are skipped: a URL there is an example,
// not a link.
func links(md []byte) []link {
	var out []link
	inFence := ""
	for i, line := range strings.Split(string(md), "\n") {
		n := i + 1
		if m := fence.FindStringSubmatch(line); m != nil {
			marker := m[1][:3]
			switch {
			case inFence == "":
				inFence = marker
				continue
			case inFence == marker:
				inFence = ""
				continue
			}
		}
		if inFence != "" {
			continue
		}
		text := codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			out = append(out, link{n, m[1]})
		}
		if m := refDef.FindStringSubmatch(text); m != nil {
			out = append(out, link{n, m[1]})
		}
		for _, m := range autolink.FindAllStringSubmatch(text, -1) {
			out = append(out, link{n, m[1]})
		}
		for _, m := range htmlRef.FindAllStringSubmatch(text, -1) {
			out = append(out, link{n, m[1]})
		}
		// What the patterns above took is not looked at again as bare text.
		rest := inlineLink.ReplaceAllString(text, "")
		rest = autolink.ReplaceAllString(rest, "")
		rest = htmlRef.ReplaceAllString(rest, "")
		if refDef.MatchString(rest) {
			rest = ""
		}
		for _, m := range bareURL.FindAllString(rest, -1) {
			out = append(out, link{n, m})
		}
	}
	return out
}

// check judges one link of the file at path (inside root): nil when it
// names a file or directory of the repository that exists, and, with a
// fragment, a heading of that Markdown file.
func check(root, path string, l link) error {
	t := l.Target
	switch {
	case t == "":
		return fmt.Errorf("empty link target")
	case scheme.MatchString(t), strings.HasPrefix(t, "//"), strings.HasPrefix(strings.ToLower(t), "www."):
		return fmt.Errorf("%q points outside the repository; write it in our own words or link a file of the repository", t)
	case strings.HasPrefix(t, "/"):
		return fmt.Errorf("%q is an absolute path; use a path relative to %s", t, filepath.Base(path))
	}
	file, frag, _ := strings.Cut(t, "#")
	target := path
	if file != "" {
		target = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
		rel, err := filepath.Rel(root, target)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%q leaves the repository", t)
		}
		if _, err := os.Stat(target); err != nil {
			return fmt.Errorf("%q: no such file in the repository", t)
		}
	}
	if frag == "" {
		return nil
	}
	if !strings.HasSuffix(target, ".md") {
		return fmt.Errorf("%q: a fragment is only checked on a Markdown file", t)
	}
	md, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	for _, a := range anchors(md) {
		if a == frag {
			return nil
		}
	}
	return fmt.Errorf("%q: %s has no heading with anchor #%s", t, filepath.Base(target), frag)
}

// anchors returns the anchors a renderer gives the headings of a Markdown
// document: lower case, punctuation dropped, spaces as hyphens, and -1, -2
// after a repeated one.
func anchors(md []byte) []string {
	var out []string
	seen := map[string]int{}
	inFence := ""
	for line := range bytes.Lines(md) {
		s := strings.TrimRight(string(line), "\r\n")
		if m := fence.FindStringSubmatch(s); m != nil {
			marker := m[1][:3]
			if inFence == "" {
				inFence = marker
			} else if inFence == marker {
				inFence = ""
			}
			continue
		}
		if inFence != "" {
			continue
		}
		m := heading.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		a := slug(m[1])
		if k := seen[a]; k > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, k)
		} else {
			seen[a] = 1
		}
		out = append(out, a)
	}
	return out
}

func slug(h string) string {
	// A link in a heading anchors on its text.
	h = headedLink.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}
