package daemonproto

// The reasons a daemon writes in its record's terminated field when it
// ends on its own, CamelCase for status conditions. The reconciler shows
// them as they are. TransportStopped is retried like a crash; any other
// terminated reason is final for that identity and generation: the daemon
// is not respawned until the token or generation changes.
const (
	// ReasonTransportStopped: the transport ended without a refusal.
	ReasonTransportStopped = "TransportStopped"
	// ReasonInvalidCredentials: the service rejected the token.
	ReasonInvalidCredentials = "InvalidCredentials"
	// ReasonDisallowedIntents: Discord refused the gateway intents asked for.
	ReasonDisallowedIntents = "DisallowedIntents"
	// ReasonGatewayRefused: Discord refused the gateway for good otherwise.
	ReasonGatewayRefused = "GatewayRefused"
)
