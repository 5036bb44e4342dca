package main

// The provider seam (issue 30): the daemon's health mailbox redacts and
// dedupes whatever a provider's transport reports, and a relay that has
// not settled (its channel check unanswered) keeps the daemon from
// calling itself healthy, now a declared method of RelayHealth. And the
// providers' conformance suite catches a provider that would double a
// message after a crash: Discord's enforced nonce, Slack's lookup by
// metadata.
func init() {
	mutants = append(mutants, []mutant{
		{"daemon: a relay not settled keeps the daemon from Ready", "pkg/chat/relayhealth.go",
			"\t\tif !d.relay.Settled() {\n", "\t\tif false {\n",
			"./pkg/chat", "TestHeartbeatWaitsForTheRelayToSettle"},
		{"daemon: a transport's health error is redacted whatever the provider", "pkg/chat/transportcomponent.go",
			"\th.Err = redactURLs(h.Err)\n", "\n",
			"./pkg/chat", "TestTransportHealthIsRedactedAndDeduped"},
		{"discord: a post's nonce is enforced, so a repeat is the same message", "pkg/chat/discord/poster.go",
			"EnforceNonce: true,", "EnforceNonce: false,",
			"./pkg/chat/discord", "TestConformance/RelayCrashMatrix"},
		{"slack: a thread's lookup reads the parts' metadata", "pkg/chat/slack/lookup.go",
			"Timestamp: thread, Oldest: oldest, Cursor: cursor, Limit: p.opts.PageSize, IncludeAllMetadata: true,",
			"Timestamp: thread, Oldest: oldest, Cursor: cursor, Limit: p.opts.PageSize, IncludeAllMetadata: false,",
			"./pkg/chat/slack", "TestConformance/RelayCrashMatrix"},
	}...)
}
