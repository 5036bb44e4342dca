// Package registry is the one registry of chat providers: the runtime,
// the daemon command and anything else that must find the service a
// config names asks here, and nowhere else switches on a provider.
// Adding a provider is a package under pkg/chat and one line below.
package registry

import (
	"fmt"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/chat/telegram"
	"gjc.dev/reconciler/pkg/spec"
)

// all are the providers a spec may name.
var all = []chat.Provider{
	discord.Provider,
	slack.Provider,
	telegram.Provider,
}

// For returns the provider named name.
func For(name spec.Provider) (chat.Provider, error) {
	for _, p := range all {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("no chat provider %q", name)
}

// All returns every provider, in the registry's order.
func All() []chat.Provider { return append([]chat.Provider(nil), all...) }
