package docs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pages are the documentation: the README and every Markdown file here.
func pages(t *testing.T) (root string, files []string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("%s is not the repository root: %v", root, err)
	}
	files, err = filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no docs/*.md found")
	}
	return root, append([]string{filepath.Join(root, "README.md")}, files...)
}

// A clone has nothing but the repository: a link to a web page, to a file
// beside the clone (../shared/...) or to a file since renamed leaves the
// reader with nothing. Every link of the README and docs/ names a file of
// the repository that exists, and a heading of it where it names one.
func TestLinksStayInTheRepository(t *testing.T) {
	root, files := pages(t)
	for _, f := range files {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, l := range links(md) {
			if err := check(root, f, l); err != nil {
				t.Errorf("%s:%d: %v", rel, l.Line, err)
			}
		}
	}
}

// A page nobody links to is a page nobody finds: the README's index names
// every file of docs/.
func TestEveryPageIsLinkedFromTheReadme(t *testing.T) {
	root, files := pages(t)
	readme, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var linked []string
	for _, l := range links(readme) {
		file, _, _ := strings.Cut(l.Target, "#")
		linked = append(linked, filepath.Join(root, filepath.FromSlash(file)))
	}
	for _, f := range files[1:] {
		if !slices.Contains(linked, f) {
			rel, _ := filepath.Rel(root, f)
			t.Errorf("README.md does not link %s", rel)
		}
	}
}

// The checker itself: what it must refuse, and what it must let through.
func TestLinkChecker(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("go.mod", "module x\n")
	write("docs/spec.md", "# The spec\n\n## Secrets: fromEnv, fromFile\n\n## Secrets: fromEnv, fromFile\n")
	page := write("docs/page.md", "# A page\n")
	for _, tc := range []struct {
		md   string
		want []string // the targets refused, in order
	}{
		{"[web](https://example.com/x)", []string{"https://example.com/x"}},
		{"[plain](http://example.com)", []string{"http://example.com"}},
		{"see <https://example.com> now", []string{"https://example.com"}},
		{"a bare https://example.com/page in text", []string{"https://example.com/page"}},
		{"and www.example.com too", []string{"www.example.com"}},
		{"[mail](mailto:a@example.com)", []string{"mailto:a@example.com"}},
		{"[design](../../shared/DESIGN.md)", []string{"../../shared/DESIGN.md"}},
		{"[abs](/etc/passwd)", []string{"/etc/passwd"}},
		{"[gone](install.md)", []string{"install.md"}},
		{"![img](pic.png)", []string{"pic.png"}},
		{"[ref]: https://example.com/ref", []string{"https://example.com/ref"}},
		{`<a href="https://example.com">x</a>`, []string{"https://example.com"}},
		{"[bad anchor](spec.md#nope)", []string{"spec.md#nope"}},
		{"[bad self anchor](#nope)", []string{"#nope"}},
		{"[ok](spec.md)", nil},
		{"[ok](../go.mod)", nil},
		{"[ok anchor](spec.md#secrets-fromenv-fromfile)", nil},
		{"[ok second anchor](spec.md#secrets-fromenv-fromfile-1)", nil},
		{"[ok dir](../docs)", nil},
		{"`https://example.com` in a code span", nil},
		{"```sh\ncurl https://example.com\n[x](https://example.com)\n```\n", nil},
		{"~~~\nhttps://example.com\n~~~\n", nil},
		{"apiURL: `http://127.0.0.1:8080`", nil},
	} {
		var got []string
		for _, l := range links([]byte(tc.md)) {
			if err := check(root, page, l); err != nil {
				got = append(got, l.Target)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: refused %q, want %q", tc.md, got, tc.want)
		}
	}
}

func TestAnchors(t *testing.T) {
	md := "# reconciler\n\n## The two commands\n\n```\n# not a heading\n```\n\n## `reload` (SIGHUP): what it re-reads\n\n## Exit codes\n\n## Exit codes\n"
	want := []string{"reconciler", "the-two-commands", "reload-sighup-what-it-re-reads", "exit-codes", "exit-codes-1"}
	if got := anchors([]byte(md)); !slices.Equal(got, want) {
		t.Errorf("anchors = %q, want %q", got, want)
	}
}
