package main

// The rules of issue 29, items 2 and 4: an outbox id never names a file
// the relay ignores; a message the verbosity leaves out is counted and
// send says so; a message for a closed session is refused by send and,
// dropped by hand, fails naming when the session closed.
func init() {
	mutants = append(mutants, []mutant{
		{"bus: an id never starts with '.' (its file would be a temp name)", "pkg/bus/id.go",
			"\treturn validToken(id, MaxIDLen, false) && !IsTempName(id+\".json\")\n", "\treturn validToken(id, MaxIDLen, false)\n",
			"./pkg/bus", "TestValidate"},
		{"relay: a message the verbosity leaves out is counted", "pkg/relay/session.go",
			"\t\tr.filter(id)\n", "",
			"./pkg/relay", "TestLeanVerbositySkipsInfo"},
		{"relay: a closed session's failure names when it closed", "pkg/relay/state.go",
			"\t\t\t\tss.closed, ss.closedAt = true, r.At\n", "\t\t\t\tss.closed = true\n",
			"./pkg/relay", "TestClosedSessionReadAndNamed"},
		{"relay: a closed session is judged before the verbosity", "pkg/relay/session.go",
			"\tswitch {\n\tcase ss.closed && m.Event == bus.EventClose:\n",
			"\tswitch {\n\tcase rd.Skip:\n\t\tr.filter(id)\n\t\treturn r.sent(ctx, name, id)\n\tcase ss.closed && m.Event == bus.EventClose:\n",
			"./pkg/relay", "TestClosedSessionReadAndNamed"},
		{"daemon: the filtered count reaches state.json", "pkg/ownership/relaystate.go",
			"{\"filtered\", r.Filtered}, ", "",
			"./pkg/ownership/fsstore", "TestRenewPublishesTheRelay"},
		{"send: says when the verbosity leaves the message out", "pkg/localapi/sendsays.go",
			"\tcase d != nil && relay.LeftOut(m, d.Config.Verbosity == spec.VerbosityVerbose):\n", "\tcase false:\n",
			"./pkg/localapi", "TestLeftOutNote"},
		{"send: a message for a closed session is refused", "pkg/localapi/send.go",
			"\tif err := checkOpen(ctx, req.Name, dirs, m); err != nil {\n", "\tif err := checkOpen(ctx, req.Name, dirs, m); false && err != nil {\n",
			"./pkg/localapi", "TestSendRefusesAClosedSession"},
		{"send: a close of a closed session is no mistake", "pkg/localapi/sendsays.go",
			"\tif m.Event == bus.EventClose {\n\t\treturn nil\n\t}\n", "",
			"./pkg/localapi", "TestSendRefusesAClosedSession"},
		{"send: a retry of a message posted before the close is no mistake", "pkg/localapi/sendsays.go",
			"\tif posted, err := bus.Posted(dirs.Outbox, m); err == nil && posted {\n", "\tif posted, err := bus.Posted(dirs.Outbox, m); false && err == nil && posted {\n",
			"./pkg/localapi", "TestSendRefusesAClosedSession"},
		{"send: the command line prints the word on stderr", "cmd/reconciler/send.go",
			"\tif resp.LeftOut != \"\" {\n", "\tif false {\n",
			"./cmd/reconciler/systemtest", "TestSendDirectly"},
		{"daemon: the filtered count reaches the heartbeat", "pkg/chat/relay.go",
			" Filtered: h.Filtered,\n", "\n",
			"./cmd/reconciler/systemtest", "TestSendSaysWhatWillNotBePosted"},
	}...)
}
