package registry

import (
	"testing"

	"gjc.dev/reconciler/pkg/spec"
)

// Every provider the spec accepts is in the registry, under its name.
func TestEveryProviderIsRegistered(t *testing.T) {
	for _, name := range []spec.Provider{spec.ProviderDiscord, spec.ProviderSlack, spec.ProviderTelegram} {
		p, err := For(name)
		if err != nil || p.Name() != name {
			t.Errorf("For(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := For("irc"); err == nil {
		t.Error("For of a provider nobody registered found one")
	}
}
