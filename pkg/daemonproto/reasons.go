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

// The reasons a live daemon gives with its heartbeat for a transport that
// is down while the daemon stays up and keeps trying (the record's
// transportReason). The reconciler shows the name Degraded with the
// reason: reconnecting alone will not fix these, someone has to act.
const (
	// ReasonTokenInUse: another consumer uses this bot's token (Slack
	// Socket Mode connections beyond this daemon's own, which split the
	// events between them; Telegram's 409 from getUpdates).
	ReasonTokenInUse = "TokenInUse"
	// ReasonWebhookSet: Telegram delivers this bot's updates to a webhook,
	// so long polling gets none until someone calls deleteWebhook.
	ReasonWebhookSet = "WebhookSet"
	// ReasonIdentifyBudgetLow: Discord's session starts left for the day
	// are below the reserve; the daemon does not identify until they reset.
	ReasonIdentifyBudgetLow = "IdentifyBudgetLow"
)
