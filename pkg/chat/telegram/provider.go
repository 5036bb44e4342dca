package telegram

import (
	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// Provider is Telegram as the daemon runtime knows it, with every default.
var Provider chat.Provider = New(Options{})

// New returns Telegram with its poster tuned by o (tests shorten the
// timeouts).
func New(o Options) chat.Provider { return provider{poster: o} }

type provider struct{ poster Options }

func (provider) Name() spec.Provider { return spec.ProviderTelegram }

func (provider) Transport(cfg *spec.Config, log logr.Logger, port *chat.InboundPort) chat.Transport {
	o := TransportOptions{Log: log, StateDir: port.StateDir()}
	if port != nil {
		o.Inbound = port // a nil *InboundPort in the interface would not be nil
	}
	return NewTransport(cfg.Telegram, o)
}

func (p provider) Poster(cfg *spec.Config, _ logr.Logger, stateDir string) (chat.Poster, error) {
	o := p.poster
	o.StateDir = stateDir
	return NewPoster(cfg.Telegram, o)
}

// Markup is plain text: the daemon sends no parse mode.
func (provider) Markup() relay.Markup { return relay.Plain }
