package registry

import (
	"strings"
	"testing"

	"gjc.dev/reconciler/internal/layout"
	"gjc.dev/reconciler/pkg/spec"
)

// Adding a provider is a package, its spec block and one registry line
// (DESIGN 5, "Providers"): outside the spec, which defines and validates
// the blocks, nothing in the product branches on which provider a bot
// uses. Tests may (a test names the provider it tests).
func TestNoProviderSwitchOutsideTheRegistryAndTheSpec(t *testing.T) {
	files, err := layout.Parse("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Test || f.Dir == "pkg/spec" || f.Dir == "pkg/chat/registry" || strings.HasPrefix(f.Dir, "hack/") || strings.HasPrefix(f.Dir, "internal/layout") {
			continue
		}
		for _, at := range layout.ProviderSwitches(f) {
			t.Errorf("%s branches on a provider: find it through the registry instead", at)
		}
	}
}

// Every provider the spec accepts is in the registry, under its name.
func TestEveryProviderIsRegistered(t *testing.T) {
	for _, name := range []spec.Provider{spec.ProviderDiscord, spec.ProviderSlack} {
		p, err := For(name)
		if err != nil || p.Name() != name {
			t.Errorf("For(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := For("irc"); err == nil {
		t.Error("For of a provider nobody registered found one")
	}
}
