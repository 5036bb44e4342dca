package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
)

// File is one parsed Go source file of the module.
type File struct {
	Dir   string // slash-separated, relative to the module root
	Path  string // slash-separated, relative to the module root
	Test  bool
	Lines int
	AST   *ast.File
	Fset  *token.FileSet
}

// skipDir names directories that hold no source of ours.
func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || (len(name) > 1 && (name[0] == '.' || name[0] == '_'))
}

// Parse reads every .go file under root (the module root).
func Parse(root string) ([]File, error) {
	fset := token.NewFileSet()
	var files []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse %s: %w", p, err)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		files = append(files, File{
			Dir:   filepath.ToSlash(filepath.Dir(rel)),
			Path:  rel,
			Test:  strings.HasSuffix(p, "_test.go"),
			Lines: fset.File(f.Pos()).LineCount(),
			AST:   f,
			Fset:  fset,
		})
		return nil
	})
	return files, err
}

// Where is a position in a file, for reports.
func (f File) Where(pos token.Pos) string {
	return fmt.Sprintf("%s:%d", f.Path, f.Fset.Position(pos).Line)
}
