// Package chat is the daemon runtime: it owns one daemon name through the
// on-disk ownership contract, keeps one connection to Discord or Slack, and
// tells the truth about that connection's health in state.json.
package chat

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/spec"
)

// Transport is one live connection to a chat service.
type Transport interface {
	// Run connects and keeps the connection up, reconnecting as needed, until
	// ctx is done. It reports every change of health. It returns only once
	// the connection is closed: nil after ctx is done, or a *TerminalError
	// when retrying cannot help.
	Run(ctx context.Context, report func(Health)) error
}

// Health is what a transport knows of its connection.
type Health struct {
	Healthy bool
	// Err says why the transport is unhealthy; empty when healthy.
	Err string
}

// TerminalError ends a daemon: the service refused it for a reason that
// reconnecting will not fix. Reason is one of daemonproto's terminated
// reasons: the daemon records it, and the reconciler does not retry it.
type TerminalError struct {
	Reason  string
	Message string
}

func (e *TerminalError) Error() string { return fmt.Sprintf("%s: %s", e.Reason, e.Message) }

// NewTransport returns the transport for a resolved config's provider;
// its inbound messages go to port (nil: nowhere).
func NewTransport(cfg *spec.Config, log logr.Logger, port *InboundPort) Transport {
	if cfg.Slack != nil {
		return NewSlack(cfg.Slack, SlackOptions{Log: log, Inbound: port})
	}
	return NewDiscord(cfg.Discord, DiscordOptions{Log: log, Inbound: port})
}
