package main

// The rules of issue 12: the local API answers only its own uid, leaves
// what is not its socket alone, and serializes an operator's command with
// the loop's own work on the name; lastgood.json never holds a token; a
// hold shows at once; a refusal is logged at error level.
func init() {
	mutants = append(mutants, []mutant{
		{"localapi: a peer of another uid is refused", "pkg/localapi/peer.go",
			"\tcase p.UID != uid:\n", "\tcase false:\n",
			"./pkg/localapi", "TestDecidePeer|TestServerRefusesAnotherUID"},
		{"localapi: every request passes the peer check", "pkg/localapi/server.go",
			"\t\tif err := decidePeer(peer, err, s.uid); err != nil {\n", "\t\tif err := decidePeer(peer, err, s.uid); false && err != nil {\n",
			"./pkg/localapi", "TestServerRefusesAnotherUID"},
		{"localapi: the client asks only a loop of its own uid", "pkg/localapi/client.go",
			"\tcase p.UID != uid:\n", "\tcase false:\n",
			"./pkg/localapi", "TestClientRefusesAServerOfAnotherUID"},
		{"localapi: what is not a socket at the path is left alone", "pkg/localapi/listen.go",
			"\tcase fi.Mode().Type() != fs.ModeSocket:\n", "\tcase false:\n",
			"./pkg/localapi", "TestListenRefusesNonSocket"},
		{"loop: an operator's command excludes the name's worker", "pkg/reconcile/loop.go",
			"\tunlock, err := l.serving.names.lock(l.ctx, name)\n", "\tunlock, err := func() {}, error(nil)\n",
			"./pkg/reconcile", "TestLoopOperationExcludesTheNamesWorker"},
		{"lastgood: an inline token is never saved", "pkg/spec/lastgood.go",
			"\t\t\tif hasInlineSecret(o.Object) {\n", "\t\t\tif false {\n",
			"./pkg/spec", "TestEncodeLastGoodHoldsReferencesOnly"},
		{"lastgood: a file holding an inline token is not used", "pkg/spec/lastgood.go",
			"\tif hasInlineSecret(obj) {\n", "\tif false {\n",
			"./pkg/spec", "TestDecodeLastGoodRefuses"},
		{"view: a held name shows Held at once", "pkg/reconcile/holdview.go",
			"\tcase p.step == stepHeld:\n", "\tcase false:\n",
			"./pkg/reconcile", "TestHoldLook"},
		{"view: a lifted hold is not shown Held", "pkg/reconcile/holdview.go",
			"\tcase held == nil && s.Phase == PhaseHeld:\n", "\tcase false:\n",
			"./pkg/reconcile", "TestHoldLook"},
		{"log: a refusal is logged at error level", "pkg/reconcile/reconciler.go",
			"\t\tif phaseIsError(a.status.Phase, a.degraded) {\n", "\t\tif false {\n",
			"./pkg/reconcile", "TestRefusalIsLoggedAtErrorLevel"},
		{"log: journald's stream gets the priority prefix", "pkg/logging/logging.go",
			"\t\tenc = priorityEncoder{enc}\n", "\t\t_ = priorityEncoder{enc}\n",
			"./pkg/logging", "TestJournalPrefixOnlyOnJournalStream"},
	}...)
}
