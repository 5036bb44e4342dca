package chat

import (
	"context"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/doctor"

	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// Provider is one chat service, all of it (DESIGN 5, "Providers"): its
// transport, its poster (the relay's exactly-once contract, and its
// limits: PartLimit), its inbound side and its markup. Each lives in its
// own package, pkg/chat/<provider>, which exports one value implementing
// it; pkg/chat/registry is the one registry that names them all, so the
// runtime never asks which service it talks to.
type Provider interface {
	// Name is the spec's name of the service (spec.provider).
	Name() spec.Provider
	// Transport returns the connection for cfg; its inbound messages go
	// to port (nil: nowhere).
	Transport(cfg *spec.Config, log logr.Logger, port *InboundPort) Transport
	// Poster returns what the relay posts through, and the inbound side
	// reads history and reacts through, for cfg. stateDir is the
	// daemon's state directory, where its transport keeps what it
	// learned ("" for none): the poster may read it (Telegram: the
	// newest message id the transport was sent, its probe's bound).
	Poster(cfg *spec.Config, log logr.Logger, stateDir string) (Poster, error)
	// Markup is the service's text dialect, for what the relay adds.
	Markup() relay.Markup
	// Doctor checks cfg against the service, a line per check, without
	// posting, editing or reacting: `reconciler doctor`.
	Doctor(ctx context.Context, cfg *spec.Config) []doctor.Line
}

// Poster is a provider's side of the relay and of the inbound side.
type Poster interface {
	relay.Poster
	inbound.Service
}
