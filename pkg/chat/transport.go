// Package chat is the daemon runtime: it owns one daemon name through the
// ownership contract, keeps one connection to its chat service (a
// Provider, each in its own package), and tells the truth about that
// connection's health in state.json.
package chat

import (
	"context"
	"fmt"

	"gjc.dev/reconciler/pkg/ownership"
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
	// Reason, with Err, names a cause that reconnecting will not fix: one
	// of daemonproto's transport reasons (TokenInUse, ...). Empty for an
	// ordinary outage.
	Reason string
	// Logins is the service's count of the bot's logins as last read
	// (and counted since), or nil; compared by value (same).
	Logins *ownership.Logins
}

// same reports whether h and o say the same, the logins by value: a
// retry that read the same count again is no change worth a heartbeat.
func (h Health) same(o Health) bool {
	hl, ol := h.Logins, o.Logins
	h.Logins, o.Logins = nil, nil
	return h == o && (hl == ol || hl != nil && ol != nil && *hl == *ol)
}

// TerminalError ends a daemon: the service refused it for a reason that
// reconnecting will not fix. Reason is one of daemonproto's terminated
// reasons: the daemon records it, and the reconciler does not retry it.
type TerminalError struct {
	Reason  string
	Message string
}

func (e *TerminalError) Error() string { return fmt.Sprintf("%s: %s", e.Reason, e.Message) }
