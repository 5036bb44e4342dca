package discord

import (
	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// Provider is Discord as the daemon runtime knows it, with every default.
var Provider chat.Provider = New(Options{})

// New returns Discord with its poster tuned by o (tests shrink the nonce
// window and the timeouts); o.Log defaults to the relay's logger.
func New(o Options) chat.Provider { return provider{poster: o} }

type provider struct{ poster Options }

func (provider) Name() spec.Provider { return spec.ProviderDiscord }

func (provider) Transport(cfg *spec.Config, log logr.Logger, port *chat.InboundPort) chat.Transport {
	return NewTransport(cfg.Discord, TransportOptions{Log: log, Inbound: port, StateDir: port.StateDir()})
}

func (p provider) Poster(cfg *spec.Config, log logr.Logger, _ string) (chat.Poster, error) {
	o := p.poster
	if o.Log.GetSink() == nil {
		o.Log = log
	}
	return NewPoster(cfg.Discord, o)
}

// Markup is Discord's Markdown: **bold**.
func (provider) Markup() relay.Markup { return relay.Markdown }
