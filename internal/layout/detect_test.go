package layout

import (
	"go/parser"
	"go/token"
	"testing"
)

func parsed(t *testing.T, src string) File {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", "package x\n"+src, 0)
	if err != nil {
		t.Fatal(err)
	}
	return File{Dir: "pkg/x", Path: "pkg/x/x.go", AST: f, Fset: fset}
}

func TestProviderSwitchesFindsEveryShape(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{`func f(p string) { switch p { case "discord": } }`, 1},
		{`func f(p string) bool { return p == "slack" }`, 1},
		{`func f(p string) bool { return "telegram" != p }`, 1},
		{`func f(p P) bool { return p == spec.ProviderDiscord }`, 1},
		{`func f(c C) bool { return c.Slack != nil }`, 1},
		{`func f(c C) bool { return nil == c.Discord }`, 1},
		{`func f(p string) { switch { case p == "discord", p == "slack": } }`, 1},
		{`func f(p string) bool { return p == "discordant" }`, 0},
		{`func f(c C) bool { return c.Other != nil }`, 0},
		{`var m = map[string]int{"discord": 1}`, 0},
	} {
		if got := len(ProviderSwitches(parsed(t, c.src))); got != c.want {
			t.Errorf("%s: %d switches, want %d", c.src, got, c.want)
		}
	}
}

func TestInterfaceAssertionsFindsCapabilities(t *testing.T) {
	ifaces := map[string]map[string]bool{"pkg/x": {"leaders": true}, "pkg/y": {"Owner": true}}
	for _, c := range []struct {
		src  string
		want int
	}{
		{`func f(v any) { _, _ = v.(interface{ Settled() bool }) }`, 1},
		{`import "io"; func f(v any) { _, _ = v.(io.Closer) }`, 1},
		{`func f(v any) { _, _ = v.(leaders) }`, 1},
		{`import "gjc.dev/reconciler/pkg/y"; func f(v any) { _, _ = v.(y.Owner) }`, 1},
		{`import y "gjc.dev/reconciler/pkg/z"; func f(v any) { _, _ = v.(y.Owner) }`, 0},
		{`func f(v any) { _, _ = v.(string) }`, 0},
		{`func f(v any) { switch v.(type) { case leaders: } }`, 0},
	} {
		if got := len(InterfaceAssertions(parsed(t, c.src), ifaces)); got != c.want {
			t.Errorf("%s: %d assertions, want %d", c.src, got, c.want)
		}
	}
}
