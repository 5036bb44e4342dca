package main

// The rules of issue 29, items 6 and 7: a reply that could not land is
// retried on its own, in order within its session, its failure kept
// until it lands; redact finds a token hidden by invisible characters,
// full-width letters or %XX escapes.
func init() {
	mutants = append(mutants, []mutant{
		{"inbound: owed replies are retried on their own", "pkg/inbound/inbound.go",
			"\t\tgo func() { defer in.wg.Done(); in.retryLoop(ctx) }()\n", "\t\tgo func() { defer in.wg.Done() }()\n",
			"./pkg/inbound", "TestOwedReplyLandsOnItsOwnInOrder"},
		{"inbound: a reply whose file could not be written is owed", "pkg/inbound/land.go",
			"\tfile, err := bus.StageInbox(in.opts.Bus, m)\n\tif err != nil {\n\t\tin.owe(ev, session)\n",
			"\tfile, err := bus.StageInbox(in.opts.Bus, m)\n\tif err != nil {\n",
			"./pkg/inbound", "TestOwedReplyLandsOnItsOwnInOrder"},
		{"inbound: a reply whose rename failed is owed", "pkg/inbound/land.go",
			"\t\tin.owe(ev, session)\n\t\treturn Landed, in.failed(", "\t\treturn Landed, in.failed(",
			"./pkg/inbound", "TestOwedReplyLandsOnItsOwnInOrder"},
		{"inbound: a later reply waits behind an owed one", "pkg/inbound/land.go",
			"\tif in.owedBefore(session, ev) {\n", "\tif false {\n",
			"./pkg/inbound", "TestHistoryWaitsBehindAnOwedReply"},
		{"inbound: an owed reply keeps the error a later landing would clear", "pkg/inbound/land.go",
			"\tif len(in.owed) == 0 {\n\t\tin.health.Error = \"\"\n", "\tif true {\n\t\tin.health.Error = \"\"\n",
			"./pkg/inbound", "TestOwedReplyLandsOnItsOwnInOrder"},
		{"inbound: status counts the replies waiting to land", "pkg/chat/relay.go",
			"\t\ts.InboxWaiting = int64(h.Owed)\n", "",
			"./cmd/reconciler/systemtest", "TestInboundReplyThatCouldNotLandLandsOnItsOwn"},
		{"inbound: describe names the replies waiting to land", "cmd/reconciler/describerelay.go",
			"\tif in.Waiting > 0 {\n", "\tif false {\n",
			"./cmd/reconciler", "TestInboxLineSaysWhatWaits"},
		{"redact: invisible characters are dropped before matching", "pkg/redact/normalize.go",
			"\tcase invisible(r):\n", "\tcase false:\n",
			"./pkg/redact", "TestContentFindsHiddenTokens|TestContentNeverLeaksHiddenTokens"},
		{"redact: full-width letters are matched as ASCII", "pkg/redact/normalize.go",
			"Decomposition(); d != nil {", "Decomposition(); false && d != nil {",
			"./pkg/redact", "TestContentFindsHiddenTokens|TestContentNeverLeaksHiddenTokens"},
		{"redact: %XX escapes are decoded before matching", "pkg/redact/normalize.go",
			"\tif c, ok := percentByte(s); ok {\n", "\tif c, ok := percentByte(s); false && ok {\n",
			"./pkg/redact", "TestContentFindsHiddenTokens|TestContentNeverLeaksHiddenTokens"},
		{"redact: a token found in the view is replaced in the text", "pkg/redact/rule.go",
			"\t\tb.WriteString(tail)\n", "\t\tb.WriteString(s[from:to] + tail[:0])\n",
			"./pkg/redact", "TestContentFindsHiddenTokens|TestContentNeverLeaksHiddenTokens"},
	}...)
}
