package slack

import (
	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// Provider is Slack as the daemon runtime knows it, with every default.
var Provider chat.Provider = New(Options{})

// New returns Slack with its poster tuned by o (tests shorten the
// timeouts and turn pacing off).
func New(o Options) chat.Provider { return provider{poster: o} }

type provider struct{ poster Options }

func (provider) Name() spec.Provider { return spec.ProviderSlack }

func (provider) Transport(cfg *spec.Config, log logr.Logger, port *chat.InboundPort) chat.Transport {
	return NewTransport(cfg.Slack, TransportOptions{Log: log, Inbound: port})
}

func (p provider) Poster(cfg *spec.Config, _ logr.Logger, _ string) (chat.Poster, error) {
	return NewPoster(cfg.Slack, p.poster)
}

// Markup is Slack's mrkdwn: *bold*.
func (provider) Markup() relay.Markup { return relay.Mrkdwn }
