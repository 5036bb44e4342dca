package layout

import (
	"go/ast"
	"go/token"
	"strconv"
)

// providerNames are the chat services, as the spec spells them.
var providerNames = map[string]bool{"discord": true, "slack": true, "telegram": true}

// providerConsts are the spec's names for them.
var providerConsts = map[string]bool{"ProviderDiscord": true, "ProviderSlack": true, "ProviderTelegram": true}

// providerBlocks are the spec's per-provider settings: asking which one is
// set is asking which provider it is.
var providerBlocks = map[string]bool{"Discord": true, "Slack": true, "Telegram": true}

// ProviderSwitches lists the places in f that branch on which chat provider
// a bot uses: a case clause, or an == / != comparison, naming a provider,
// or a test of whether a provider's settings block is nil.
// Adding a provider must be a new package and one registry line, so these
// belong only in the registry and the spec's validation.
func ProviderSwitches(f File) []string {
	var out []string
	seen := map[string]bool{}
	add := func(pos token.Pos) {
		if w := f.Where(pos); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	ast.Inspect(f.AST, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CaseClause:
			for _, e := range n.List {
				if namesProvider(e) {
					add(e.Pos())
					break
				}
			}
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (namesProvider(n.X) || namesProvider(n.Y) || blockIsNil(n)) {
				add(n.Pos())
			}
		}
		return true
	})
	return out
}

func namesProvider(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		return e.Kind == token.STRING && err == nil && providerNames[s]
	case *ast.Ident:
		return providerConsts[e.Name]
	case *ast.SelectorExpr:
		return providerConsts[e.Sel.Name]
	case *ast.ParenExpr:
		return namesProvider(e.X)
	}
	return false
}

func blockIsNil(b *ast.BinaryExpr) bool {
	isNil := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == "nil" }
	isBlock := func(e ast.Expr) bool { s, ok := e.(*ast.SelectorExpr); return ok && providerBlocks[s.Sel.Name] }
	return (isNil(b.Y) && isBlock(b.X)) || (isNil(b.X) && isBlock(b.Y))
}
