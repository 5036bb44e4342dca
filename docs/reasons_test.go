package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every reason the code can put in a status is explained in
// docs/troubleshooting.md, written there as `Reason`: an operator who sees
// one in `reconciler status` finds what it means and what to do. A reason
// is what the module declares as one (a constant named Reason..., a
// literal given to a reason field or variable, or returned by a Reason
// method), as the uniqueness test of pkg/daemonproto finds them.
func TestTroubleshootingNamesEveryReason(t *testing.T) {
	root, _ := pages(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "troubleshooting.md"))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{} // value -> where
	fset := token.NewFileSet()
	for _, dir := range []string{"pkg", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), "fake")):
				// The fake servers and the fake store are test doubles:
				// what they say never reaches an operator's status.
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, r := range reasonValues(f) {
				if _, ok := found[r.value]; !ok {
					pos := fset.Position(r.pos)
					rel, _ := filepath.Rel(root, pos.Filename)
					found[r.value] = rel + ":" + strconv.Itoa(pos.Line)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(found) < 30 {
		t.Fatalf("found only %d reasons under pkg/ and cmd/: the scan does not see the module's reasons", len(found))
	}
	values := make([]string, 0, len(found))
	for v := range found {
		values = append(values, v)
	}
	slices.Sort(values)
	for _, v := range values {
		if !strings.Contains(string(doc), "`"+v+"`") {
			t.Errorf("reason %s (%s) is not explained in docs/troubleshooting.md: add it as `%s`, with what it means and what to do", v, found[v], v)
		}
	}
}

type reasonValue struct {
	value string
	pos   token.Pos
}

var camelCase = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$`)

// reasonValues finds the reason values f declares.
func reasonValues(f *ast.File) []reasonValue {
	var out []reasonValue
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil && camelCase.MatchString(v) {
				out = append(out, reasonValue{v, lit.Pos()})
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if i < len(n.Values) && namesReason(name.Name) {
					add(n.Values[i])
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && namesReason(k.Name) {
				add(n.Value)
			}
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, lhs := range n.Lhs {
				switch l := lhs.(type) {
				case *ast.Ident:
					if namesReason(l.Name) {
						add(n.Rhs[i])
					}
				case *ast.SelectorExpr:
					if namesReason(l.Sel.Name) {
						add(n.Rhs[i])
					}
				}
			}
		case *ast.FuncDecl:
			if n.Recv == nil || n.Name.Name != "Reason" || n.Body == nil {
				return true
			}
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if r, ok := m.(*ast.ReturnStmt); ok {
					for _, e := range r.Results {
						add(e)
					}
				}
				return true
			})
		}
		return true
	})
	return out
}

// namesReason: Reason, reason, ReasonX, reasonX (not Reasons or reasonable).
func namesReason(name string) bool {
	for _, p := range []string{"Reason", "reason"} {
		if rest, ok := strings.CutPrefix(name, p); ok && (rest == "" || rest[0] >= 'A' && rest[0] <= 'Z') {
			return true
		}
	}
	return false
}
