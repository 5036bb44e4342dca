package main

// The rules of issue 32's core that a decision's exactly-once stands on:
// only the authorized decide; a click must name an ask of ours on its own
// message; the journal's first decision of an ask is the one; an ask is
// recorded before it leaves the outbox; a decision in doubt is the only
// one the ask can still get; a click past expiresAt finds it expired.
func init() {
	mutants = append(mutants, []mutant{
		{"inbound: a stranger's click decides nothing", "pkg/inbound/ask.go",
			"\tcase !in.authorized[c.User]:\n", "\tcase false:\n",
			"./pkg/inbound", "TestFirstAuthorizedClickDecidesOnce"},
		{"inbound: a click must be on the ask's own message", "pkg/inbound/ask.go",
			" || c.Message != a.rec.Remote ", " ",
			"./pkg/inbound", "TestFirstAuthorizedClickDecidesOnce"},
		{"inbound: the journal's first decision of an ask is the one", "pkg/inbound/askjournal.go",
			"\t\tif a := asks[r.ID]; a != nil && a.decided == nil {\n", "\t\tif a := asks[r.ID]; a != nil {\n",
			"./pkg/inbound", "TestReplayKeepsTheFirstDecision"},
		{"inbound: a decision in doubt is appended again before any other", "pkg/inbound/ask.go",
			"\trec := a.tried\n\tif rec == nil {\n", "\tvar rec *bus.InboundRecord\n\tif rec == nil {\n",
			"./pkg/inbound", "TestDecisionInDoubtIsTheOnlyOne"},
		{"inbound: a click past expiresAt finds the ask expired", "pkg/inbound/ask.go",
			"\tif a.decided == nil && !now.Before(time.UnixMilli(a.rec.At)) {\n", "\tif false {\n",
			"./pkg/inbound", "TestClickAfterExpiresAtFindsItExpired"},
		{"relay: an ask is handed to the inbound side before it leaves the outbox", "pkg/relay/session.go",
			"\t\tif err := r.askPosted(ctx, m, rd); err != nil {\n", "\t\tif err := error(nil); err != nil {\n",
			"./pkg/relay", "TestAskPostsButtonsOnItsLastPart"},
		{"relay: an edit reaches every part of what it replaces", "pkg/relay/session.go",
			"\t\tparts = spread(parts, len(replaced))\n", "\t\t_ = spread\n",
			"./pkg/relay", "TestOutcomeEditsTheButtonsPart"},
		{"bus: an ask's choices are checked", "pkg/bus/ask.go",
			"\t\tif rule := choiceRule(c); rule != \"\" {\n\t\t\tbad(\"choices\", rule)\n\t\t\tcontinue\n\t\t}\n", "",
			"./pkg/bus", "TestAskValidate"},
	}...)
}
