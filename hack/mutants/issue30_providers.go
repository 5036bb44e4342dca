package main

// The provider seam (issue 30): the daemon's health mailbox redacts and
// dedupes whatever a provider's transport reports, and a relay that has
// not settled (its channel check unanswered) keeps the daemon from
// calling itself healthy, now a declared method of RelayHealth.
func init() {
	mutants = append(mutants, []mutant{
		{"daemon: a relay not settled keeps the daemon from Ready", "pkg/chat/relayhealth.go",
			"\t\tif !d.relay.Settled() {\n", "\t\tif false {\n",
			"./pkg/chat", "TestHeartbeatWaitsForTheRelayToSettle"},
		{"daemon: a transport's health error is redacted whatever the provider", "pkg/chat/transportcomponent.go",
			"\th.Err = redactURLs(h.Err)\n", "\n",
			"./pkg/chat", "TestTransportHealthIsRedactedAndDeduped"},
	}...)
}
