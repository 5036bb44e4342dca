package main

// The rules of issue 36's inbox across machines: every machine's inbox
// gets what the owner landed exactly once (the ledger is read before a
// copy and written at its commit point; the landing machine is never
// written to again; a new owner does not land a copied reply twice; a
// landing is kept for the fleet before its file is published), and
// what comes from etcd is judged before anything is written.
func init() {
	mutants = append(mutants, []mutant{
		{"fleet inbox: the landing machine never gets its own landing again", "pkg/fleetbus/inboxcopy.go",
			"\tcase state != notHere:\n", "\tcase false:\n",
			"./pkg/fleetbus", "TestInboxLandingKeptWhileTheLoopWasDownIsPutAtStart$"},
		{"fleet inbox: a copy is recorded before it is published", "pkg/fleetbus/inboxcopy.go",
			"\tif err := l.markCopied(e); err != nil {\n", "\tif err := error(nil); err != nil {\n",
			"./pkg/fleetbus", "TestInboxReachesEveryMachineOnce$"},
		{"fleet inbox: a new owner drops a landing copied here already", "pkg/inbound/land.go",
			"\t\tif copied {\n", "\t\tif copied && false {\n",
			"./pkg/fleetbus", "TestInboxReachesEveryMachineOnce$"},
		{"fleet inbox: a landing is kept for the fleet before its file is published", "pkg/inbound/land.go",
			"\tif in.opts.Keep != nil {\n", "\tif false {\n",
			"./pkg/inbound", "TestKeep"},
		{"fleet inbox: an entry from etcd is judged before anything is written", "pkg/fleetbus/inboxcopy.go",
			"\tif err := bus.CheckInboxEntry(session, file, value); err != nil {\n", "\tif err := error(nil); err != nil {\n",
			"./pkg/fleetbus", "TestInboxRefusesMalformedEntries$"},
		{"fleet inbox: an entry's session must be a session name", "pkg/bus/inboxcopy.go",
			"\tif !ValidInboxSession(session) {\n\t\treturn fmt.Errorf(\"inbox entry: session", "\tif false {\n\t\treturn fmt.Errorf(\"inbox entry: session",
			"./pkg/fleetbus", "TestInboxRefusesMalformedEntries$"},
		{"fleet inbox: an entry's file must be a name the bus writes", "pkg/bus/inboxcopy.go",
			"\tif !ValidInboxFile(file) {\n\t\treturn fmt.Errorf(\"inbox entry: file", "\tif false {\n\t\treturn fmt.Errorf(\"inbox entry: file",
			"./pkg/bus", "TestCheckInboxEntry$"},
		{"fleet inbox: an entry's id must be its name's", "pkg/bus/inboxcopy.go",
			"\tcase head.ID == nil || *head.ID != id:\n", "\tcase head.ID == nil:\n",
			"./pkg/fleetbus", "TestInboxRefusesMalformedEntries$"},
		{"fleet inbox: an entry's size is bounded", "pkg/bus/inboxcopy.go",
			"\tif len(data) > MaxInboxFileSize {\n\t\treturn fmt.Errorf(\"inbox entry %s:", "\tif false {\n\t\treturn fmt.Errorf(\"inbox entry %s:",
			"./pkg/bus", "TestCheckInboxEntry$"},
		{"fleet inbox: the ledger remembers a put from the put, not from the landing", "pkg/fleetbus/inboxledger.go",
			"\tif err := os.Chtimes(from, now, now); err != nil {\n", "\tif err := error(nil); err != nil {\n",
			"./pkg/fleetbus", "TestLedgerPrune$"},
		{"fleet inbox: a fleet's daemon keeps its landings for the fleet", "pkg/chat/relay.go",
			"\t\t\t\tkeep = shared.KeepInbox\n", "\t\t\t\tkeep = nil\n",
			"./cmd/reconciler/systemtest", "TestFleetReplyReachesEveryMachinesInbox$"},
		{"fleet inbox: every machine's loop follows the fleet's inbox", "cmd/reconciler/fleet.go",
			"Log: log.WithName(\"fleet-inbox\"), Names: names}", "Log: log.WithName(\"fleet-inbox\"), Names: func() []string { return nil }}",
			"./cmd/reconciler/systemtest", "TestFleetReplyReachesEveryMachinesInbox$"},
		{"fleet inbox: the daemon keeps a landing under the ledger's lock", "pkg/fleetbus/inboxledger.go",
			"\tunlock, err := l.lock()\n\tif err != nil {\n\t\treturn false, err\n\t}\n", "\tunlock, err := func() {}, error(nil)\n\tif err != nil {\n\t\treturn false, err\n\t}\n",
			"./pkg/fleetbus", "TestLandingAndCopyOfOneEntryTakeTurns$"},
		{"fleet inbox: the loop copies an entry under the ledger's lock", "pkg/fleetbus/inboxcopy.go",
			"\tunlock, err := l.lock() // against", "\tunlock, err := func() {}, error(nil) // against",
			"./pkg/fleetbus", "TestLandingAndCopyOfOneEntryTakeTurns$"},
		{"fleet inbox: the resync lists keys, reading only the values missing here", "pkg/fleetbus/inboxfollow.go",
			", clientv3.WithKeysOnly()}", "}",
			"./pkg/fleetbus", "TestInboxResyncReadsOnlyWhatIsMissing$"},
		{"fleet inbox: the ledger's own directory is judged (no symbolic link)", "pkg/fleetbus/inboxledger.go",
			"range []string{l.dir, l.stateDir(landed),", "range []string{l.stateDir(landed),",
			"./pkg/fleetbus", "TestLedgerRefusesALinkedDirectory$"},
	}...)
}
