package docs

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// ownership.md's state.json table is what other tools read the record by:
// every key the daemons write has its row.
func TestStateTableListsEveryKey(t *testing.T) {
	root, _ := pages(t)
	md, err := os.ReadFile(filepath.Join(root, "docs", "ownership.md"))
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(md), "## `state.json`")
	if start < 0 {
		t.Fatal("ownership.md has no state.json section")
	}
	section := string(md[start:])
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Za-z]+)` \\|").FindAllStringSubmatch(section, -1) {
		rows[m[1]] = true
	}
	typ := reflect.TypeFor[ownership.State]()
	for i := range typ.NumField() {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if key != "" && key != "-" && !rows[key] {
			t.Errorf("docs/ownership.md: the state.json table has no row for %q, which the daemons write", key)
		}
	}
}

// The docs stand alone: a citation of the working design names a text
// the reader does not have.
func TestNoPageCitesTheDesign(t *testing.T) {
	root, files := pages(t)
	for _, f := range files {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for i, line := range strings.Split(string(md), "\n") {
			if strings.Contains(line, "DESIGN") {
				t.Errorf("%s:%d cites the design, which is not in the repository: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
	}
}
