package slack

import (
	"fmt"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/daemonproto"
)

// helloHealth is the health a Socket Mode hello gives: connected, unless
// hello counts more of the app's connections than this daemon's one
// (num_connections: Slack's count of the app's open Socket Mode
// connections, this one included). Slack hands each event to one of
// them, so another consumer of the app token (a forgotten second
// instance) takes a share of the replies while both look connected:
// TokenInUse, a transport down for a cause reconnecting will not fix, so
// the name is Degraded and never Ready. A later hello that counts one
// clears it. A hello without the field (0) is taken as this connection
// alone.
func helloHealth(connections int) chat.Health {
	if connections > 1 {
		return chat.Health{Err: tokenInUseMessage(connections), Reason: daemonproto.ReasonTokenInUse}
	}
	return chat.Health{Healthy: true}
}

func tokenInUseMessage(connections int) string {
	return fmt.Sprintf("Slack reports %d Socket Mode connections of this app, this daemon holds one: Slack splits events between them, so replies go to the others; stop the other consumer of the app token (appToken), or give it an app of its own", connections)
}
