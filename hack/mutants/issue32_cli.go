package main

// The command line's rules of issue 32 (decisions): ask --wait answers
// with its own ask's decision and no other (a hook allows what was asked,
// never what another question decided), and an expiry is exit 5, never a
// choice a hook could take for an answer.
func init() {
	mutants = append(mutants, []mutant{
		{"ask --wait: only its own ask's decision answers it", "cmd/reconciler/askwait.go",
			"\t\tif m.IsDecision() && m.Ask == id {\n", "\t\tif m.IsDecision() {\n",
			"./cmd/reconciler", "TestDecisionOf"},
		{"ask --wait: a reply is never a decision", "cmd/reconciler/askwait.go",
			"\t\tif m.IsDecision() && m.Ask == id {\n", "\t\tif m.Ask == id || m.Text == id {\n",
			"./cmd/reconciler", "TestDecisionOf"},
		{"ask --wait: an expiry is exit 5", "cmd/reconciler/askwait.go",
			"\tif d.Choice == bus.ChoiceExpired {\n", "\tif false {\n",
			"./cmd/reconciler/systemtest", "TestAskWaitExitsFiveWhenNobodyDecided"},
	}...)
}
