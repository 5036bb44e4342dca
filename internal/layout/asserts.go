package layout

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// Module is the module path the import rules speak of.
const Module = "gjc.dev/reconciler"

// stdInterfaces are the standard library's interfaces a capability is most
// often found by: enough to recognise one without type-checking.
var stdInterfaces = map[string]bool{
	"io.Closer": true, "io.Reader": true, "io.Writer": true, "io.ReadCloser": true,
	"io.WriteCloser": true, "io.ReadWriteCloser": true, "fmt.Stringer": true,
	"http.Flusher": true, "http.Hijacker": true, "net.Error": true,
}

// Assertion is one value.(T) in non-test code whose T is an interface.
type Assertion struct {
	Where, Type string
}

// Interfaces maps each package dir of the module to the names of the
// interfaces it declares.
func Interfaces(files []File) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, f := range files {
		for _, d := range f.AST.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok {
					continue
				}
				if _, ok := ts.Type.(*ast.InterfaceType); ok {
					if out[f.Dir] == nil {
						out[f.Dir] = map[string]bool{}
					}
					out[f.Dir][ts.Name.Name] = true
				}
			}
		}
	}
	return out
}

// InterfaceAssertions lists the type assertions in f that find a
// capability: the asserted type is an interface literal, one of the
// module's interfaces, or a well-known standard one. A type switch is not
// listed: it chooses among concrete kinds.
func InterfaceAssertions(f File, ifaces map[string]map[string]bool) []Assertion {
	imports := map[string]string{} // local name -> import path
	for _, im := range f.AST.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	var out []Assertion
	ast.Inspect(f.AST, func(n ast.Node) bool {
		ta, ok := n.(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil {
			return true
		}
		text := types.ExprString(ta.Type)
		is := false
		switch t := ta.Type.(type) {
		case *ast.InterfaceType:
			is = true
		case *ast.Ident:
			is = ifaces[f.Dir][t.Name]
		case *ast.SelectorExpr:
			if x, ok := t.X.(*ast.Ident); ok {
				p := imports[x.Name]
				is = stdInterfaces[x.Name+"."+t.Sel.Name] ||
					(strings.HasPrefix(p, Module+"/") && ifaces[strings.TrimPrefix(p, Module+"/")][t.Sel.Name])
			}
		}
		if is {
			out = append(out, Assertion{Where: f.Where(ta.Pos()), Type: text})
		}
		return true
	})
	return out
}
