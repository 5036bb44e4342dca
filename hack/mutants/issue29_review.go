package main

// Rules of issue 29 that its review added: an outbox entry left in place
// is judged again once it changes, not forgotten until a restart; a
// token that a hidden character only borders is still found.
func init() {
	mutants = append(mutants, []mutant{
		{"outbox: an entry left in place is judged again once it changed", "pkg/relay/outbox.go",
			"\t\tseen = err == nil && now.Same(left)\n", "\t\tseen = err == nil && now.Same(now) && left == left\n",
			"./pkg/relay", "TestAnotherUIDsFileIsNeverPosted"},
		{"redact: the text as written is matched too, after its view", "pkg/redact/rule.go",
			"\t\tfor _, viewed := range []bool{true, false} {\n", "\t\tfor _, viewed := range []bool{true} {\n",
			"./pkg/redact", "TestTokens"},
		{"fleet: a stop where another machine leads holds nothing, even with nothing running", "pkg/reconcile/operate.go",
			"\t\tif !l.cls.Signalable {\n", "\t\tif false {\n",
			"./cmd/reconciler/systemtest", "TestFleetStopWhereAnotherLeadsHoldsNothing"},
		{"send: a message after a queued close of its session is refused", "pkg/localapi/sendsays.go",
			"\tif id := queuedClose(dirs, m); id != \"\" {\n", "\tif id := queuedClose(dirs, m); false && id != \"\" {\n",
			"./pkg/localapi", "TestSendRefusesAClosedSession"},
		{"hold: a stop refused after its hold was written lifts it", "pkg/reconcile/operate.go",
			"\t\t\tif held && created && errors.Is(err, ownership.ErrNothingSent) {\n", "\t\t\tif false && created {\n",
			"./pkg/reconcile", "TestStopRefusedAfterSendingHoldsNothing"},
		{"hold: a hold set before a refused stop stays", "pkg/reconcile/operate.go",
			"\t\t\tif held && created && errors.Is(err, ownership.ErrNothingSent) {\n", "\t\t\tif held && created == created && errors.Is(err, ownership.ErrNothingSent) {\n",
			"./pkg/reconcile", "TestStopRefusedAfterSendingHoldsNothing"},
	}...)
}
