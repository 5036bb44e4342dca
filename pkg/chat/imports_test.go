package chat

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "gjc.dev/reconciler/"

// The runtime knows no provider and no fleet (DESIGN 2 and 5): the
// providers are found through the registry, which imports them, and a
// fleet's bus is handed in by the daemon's wiring (Owners).
func TestRuntimeImportsNoProviderAndNoFleetBus(t *testing.T) {
	forbidden := []string{"pkg/fleetbus", "pkg/chat/discord", "pkg/chat/slack", "pkg/chat/registry"}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(pkg string, via []string)
	walk = func(pkg string, via []string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		for _, f := range forbidden {
			if pkg == f {
				t.Errorf("pkg/chat imports %s (via %s)", f, strings.Join(via, " -> "))
			}
		}
		for _, imp := range imports(t, filepath.Join(root, pkg)) {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				walk(rest, append(via, rest))
			}
		}
	}
	walk("pkg/chat", []string{"pkg/chat"})
}

// imports are the imports of the non-test Go files of dir.
func imports(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			out = append(out, p)
		}
	}
	return out
}
