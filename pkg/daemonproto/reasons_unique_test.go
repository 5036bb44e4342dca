package daemonproto

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

// A reason string is status vocabulary: the README's reason table, the
// daemon's terminated field and the reconciler's conditions all spell it.
// Declared in one package, a reason can change only in one place; declared
// in two, the copies drift apart silently. So every CamelCase reason value
// of the module's code is declared by exactly one package: the protocol's
// when a daemon writes it, ownership's when it judges a record, the
// reconciler's when only it says it. A package using a reason with the
// same meaning uses the owner's constant; one that means something else
// gives it another name.
func TestNoReasonDeclaredInTwoPackages(t *testing.T) {
	root := moduleRoot(t)
	// value -> package dir -> where
	decls := map[string]map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skippedDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg, _ := filepath.Rel(root, filepath.Dir(path))
		for _, r := range reasonDecls(f) {
			pos := fset.Position(r.pos)
			rel, _ := filepath.Rel(root, pos.Filename)
			if decls[r.value] == nil {
				decls[r.value] = map[string][]string{}
			}
			decls[r.value][pkg] = append(decls[r.value][pkg], rel+":"+strconv.Itoa(pos.Line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(decls) < 20 {
		t.Fatalf("found only %d reason values in %s: the scan does not see the module's reasons", len(decls), root)
	}
	values := make([]string, 0, len(decls))
	for v := range decls {
		values = append(values, v)
	}
	slices.Sort(values)
	for _, v := range values {
		if len(decls[v]) < 2 {
			continue
		}
		var where []string
		for _, places := range decls[v] {
			where = append(where, places...)
		}
		slices.Sort(where)
		t.Errorf("reason %q is declared in %d packages: %s; use one package's constant, or give a different meaning another name",
			v, len(decls[v]), strings.Join(where, ", "))
	}
}

// skippedDir: tool caches (.tools), testdata and vendored code are not
// the module's code.
func skippedDir(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor"
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

type reasonDecl struct {
	value string
	pos   token.Pos
}

var camelCase = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$`)

// reasonDecls finds where f declares a reason value: a constant named
// Reason..., a literal given to a Reason field or a reason variable, or
// one returned by a Reason method.
func reasonDecls(f *ast.File) []reasonDecl {
	var out []reasonDecl
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil && camelCase.MatchString(v) {
				out = append(out, reasonDecl{v, lit.Pos()})
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

// namesReason: Reason, reason, ReasonX, reasonX (not Reasons or
// reasonable).
func namesReason(name string) bool {
	for _, p := range []string{"Reason", "reason"} {
		if rest, ok := strings.CutPrefix(name, p); ok && (rest == "" || rest[0] >= 'A' && rest[0] <= 'Z') {
			return true
		}
	}
	return false
}
