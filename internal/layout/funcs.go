package layout

import "go/ast"

// Func is one function or method and its length in lines.
type Func struct {
	Where, Name string
	Lines       int
}

// Funcs lists the functions declared in f.
func Funcs(f File) []Func {
	var out []Func
	for _, d := range f.AST.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = recvName(fd.Recv.List[0].Type) + "." + name
		}
		start, end := f.Fset.Position(fd.Pos()).Line, f.Fset.Position(fd.End()).Line
		out = append(out, Func{Where: f.Where(fd.Pos()), Name: name, Lines: end - start + 1})
	}
	return out
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}
