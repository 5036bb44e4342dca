package layout

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// root is the module root, found from this file so the test runs from any
// directory.
func root(t *testing.T) string {
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find this test's own file")
	}
	return filepath.Join(filepath.Dir(here), "..", "..")
}

// deps maps each package of the module (relative dir) to the packages it
// depends on, directly or not: ours by relative dir, others by import path.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./...")
	cmd.Dir = root(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		var ds []string
		for _, d := range f[1:] {
			ds = append(ds, strings.TrimPrefix(d, Module+"/"))
		}
		m[strings.TrimPrefix(f[0], Module+"/")] = ds
	}
	return m
}

func under(pkg, dir string) bool {
	if alone, ok := strings.CutSuffix(dir, "/."); ok {
		return pkg == alone
	}
	return pkg == dir || strings.HasPrefix(pkg, dir+"/")
}

// The design's dependency rules (DESIGN section 2): each is a package (or a
// tree of them) that must not depend on another, directly or not, and why.
// A from ending in "/." is that package alone, not the packages under it.
var forbidden = []struct{ from, to, why string }{
	{"pkg/atomicfile", "pkg", "atomic files are a leaf: any package may keep its files with it, pkg/reconcile too"},
	{"pkg/incarnation", "pkg", "an incarnation's format is a leaf: the platform makes them, the records carry them"},
	{"pkg/platform", "pkg", "the platform imports nothing of ours but the atomic-file and incarnation leaves"},
	{"pkg/ownership/.", "pkg/platform", "the model judges facts; proving them is a backend's job"},
	{"pkg/ownership/.", "pkg/relay", "the words a record carries are declared in pkg/ownership"},
	{"pkg/ownership/.", "pkg/inbound", "the words a record carries are declared in pkg/ownership"},
	{"pkg/ownership/fsstore", "pkg/ownership/etcdstore", "a backend stores records; neither backend imports the other"},
	{"pkg/ownership/fsstore", "pkg/ownership/fakestore", "a backend stores records; it does not borrow another's"},
	{"pkg/ownership/etcdstore", "pkg/ownership/fsstore", "a backend stores records; neither backend imports the other (what both need of an agent dir is internal/agentdir)"},
	{"pkg/ownership/etcdstore", "pkg/ownership/fakestore", "a backend stores records; it does not borrow another's"},
	{"pkg/ownership/fakestore", "pkg/ownership/fsstore", "a backend stores records; it does not borrow another's"},
	{"pkg/ownership/fakestore", "pkg/ownership/etcdstore", "a backend stores records; it does not borrow another's"},
	{"pkg/chat", "pkg/fleetbus", "a fleet's bus is handed to the runtime with its claim by the daemon's wiring (chat.Owners)"},
	{"pkg/chat", "pkg/chat/registry", "the runtime knows no provider; the wiring finds one in the registry"},
	{"pkg/reconcile", "pkg/platform", "the reconciler decides; proving and signalling a process is the store's job"},
	{"pkg/reconcile", "pkg/ownership/fsstore", "the same loop runs over a fleet's store"},
	{"pkg/reconcile", "github.com/prometheus", "metrics are fed through Hooks and OnStatus; exporting them is pkg/metrics' business"},
}

// leafMayUse are the exceptions to the rules above: the platform builds its
// leases and exclusive files on the atomic-file leaf, and makes incarnations
// in the format the incarnation leaf declares.
var leafMayUse = map[string][]string{"pkg/platform": {"pkg/atomicfile", "pkg/incarnation"}}

// providers are the provider packages: only the registry, and the tests
// that run a provider, may import one.
var providers = []string{"pkg/chat/discord", "pkg/chat/slack", "pkg/chat/telegram"}

func TestImportsFollowTheLayout(t *testing.T) {
	all := deps(t)
	for pkg, ds := range all {
		for _, r := range forbidden {
			if !under(pkg, r.from) {
				continue
			}
			for _, d := range ds {
				if under(d, r.to) && !under(d, r.from) && !slices.Contains(leafMayUse[r.from], d) {
					t.Errorf("%s depends on %s: %s", pkg, d, r.why)
				}
			}
		}
	}
	for pkg, ds := range all {
		if under(pkg, "pkg/chat/registry") || strings.HasPrefix(pkg, "cmd/") {
			continue // the registry, and the binary that links every provider through it
		}
		for _, d := range ds {
			for _, p := range providers {
				if d == p && !under(pkg, p) && !under(pkg, "pkg/chat/providertest") {
					t.Errorf("%s imports the provider package %s; find providers through pkg/chat/registry", pkg, p)
				}
			}
		}
	}
}

// switchesAllowed are the only places that may branch on which chat
// provider a bot uses: adding a provider is a new package, its spec block
// and one registry line.
var switchesAllowed = []string{"pkg/spec", "pkg/chat/registry"}

func TestProviderSwitchesOnlyInTheRegistryAndTheSpec(t *testing.T) {
	files, err := Parse(root(t))
	if err != nil {
		t.Fatal(err)
	}
next:
	for _, f := range files {
		if f.Test || strings.HasPrefix(f.Dir, "hack/") {
			continue
		}
		for _, dir := range switchesAllowed {
			if under(f.Dir, dir) {
				continue next
			}
		}
		for _, w := range ProviderSwitches(f) {
			t.Errorf("%s branches on the chat provider; ask the provider registry instead", w)
		}
	}
}

// assertionsAllowed are the standard library's own ways of finding an
// optional capability, which no declared interface of ours can replace.
var assertionsAllowed = map[string]string{
	"http.Hijacker": "net/http hands a handler only a ResponseWriter; Hijacker is how its connection is taken over",
}

func TestCapabilitiesAreDeclaredNotAsserted(t *testing.T) {
	files, err := Parse(root(t))
	if err != nil {
		t.Fatal(err)
	}
	ifaces := Interfaces(files)
	for _, f := range files {
		if f.Test {
			continue
		}
		for _, a := range InterfaceAssertions(f, ifaces) {
			if _, ok := assertionsAllowed[a.Type]; !ok {
				t.Errorf("%s finds a capability by asserting .(%s); make it a method of a declared interface", a.Where, a.Type)
			}
		}
	}
}
