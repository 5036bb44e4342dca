// Command corestats prints the figures the core's layout is judged by:
// lines per package, the longest functions, the capabilities found by type
// assertion, the places that switch on a chat provider, and the size of the
// fakes beside the provider code they fake. Run it from the repository
// root: go run ./hack/corestats
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"gjc.dev/reconciler/internal/layout"
)

func main() {
	files, err := layout.Parse(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "corestats:", err)
		os.Exit(1)
	}
	type size struct{ code, test int }
	pkgs := map[string]*size{}
	var funcs []layout.Func
	var asserts []layout.Assertion
	var switches []string
	ifaces := layout.Interfaces(files)
	for _, f := range files {
		s := pkgs[f.Dir]
		if s == nil {
			s = &size{}
			pkgs[f.Dir] = s
		}
		if f.Test {
			s.test += f.Lines
			continue
		}
		s.code += f.Lines
		if strings.HasPrefix(f.Dir, "hack/") {
			continue // the tools, not the product
		}
		funcs = append(funcs, layout.Funcs(f)...)
		asserts = append(asserts, layout.InterfaceAssertions(f, ifaces)...)
		switches = append(switches, layout.ProviderSwitches(f)...)
	}

	dirs := make([]string, 0, len(pkgs))
	total := size{}
	for d, s := range pkgs {
		dirs = append(dirs, d)
		total.code += s.code
		total.test += s.test
	}
	sort.Strings(dirs)
	fmt.Printf("lines per package (code / tests):\n")
	for _, d := range dirs {
		fmt.Printf("  %-40s %6d / %6d\n", d, pkgs[d].code, pkgs[d].test)
	}
	fmt.Printf("  %-40s %6d / %6d\n", "total", total.code, total.test)

	sort.Slice(funcs, func(i, j int) bool { return funcs[i].Lines > funcs[j].Lines })
	fmt.Printf("\nlongest functions (non-test):\n")
	for _, fn := range funcs[:min(15, len(funcs))] {
		fmt.Printf("  %4d  %-40s %s\n", fn.Lines, fn.Name, fn.Where)
	}
	lens := make([]int, len(funcs))
	for i, fn := range funcs {
		lens[i] = fn.Lines
	}
	sort.Ints(lens)
	if len(lens) > 0 {
		fmt.Printf("  %d functions, median %d lines\n", len(lens), lens[len(lens)/2])
	}

	fmt.Printf("\ncapabilities found by type assertion (non-test): %d\n", len(asserts))
	for _, a := range asserts {
		fmt.Printf("  %-55s .(%s)\n", a.Where, a.Type)
	}

	fmt.Printf("\nprovider switches (non-test): %d\n", len(switches))
	for _, s := range switches {
		fmt.Printf("  %s\n", s)
	}

	fakes, providers := 0, 0
	for _, d := range dirs {
		switch {
		case strings.HasPrefix(d, "pkg/chat/fake") || d == "pkg/chat/internal/fakeserver":
			fakes += pkgs[d].code
		case d == "pkg/chat/discord" || d == "pkg/chat/slack" || d == "pkg/chat/telegram":
			providers += pkgs[d].code
		}
	}
	fmt.Printf("\nfakes: %d lines of code against %d in the provider packages\n", fakes, providers)
}
