package main

// Issue 31's id probe, its two bounds: it starts at the chat's top known
// before the attempt (journaled with it, as its After), never from the
// chat's first id when a higher one is known; and a gap of missing ids
// below a message known to exist is no top of the chat.
func init() {
	mutants = append(mutants, []mutant{
		{"telegram probe: an attempt's floor is the chat's top known, not only its place's last part", "pkg/chat/telegram/top.go",
			"\treturn strconv.FormatInt(top, 10)\n}\n", "\treturn last\n}\n",
			"./pkg/chat/telegram", "TestProbeStartsAtTheTopKnownBeforeTheAttempt|TestFloor|TestRelayFindsALostFirstRootInALongHistory"},
		{"telegram probe: the probe starts above the journaled floor", "pkg/chat/telegram/lookup.go",
			"\tfor _, s := range []string{after, thread} {\n", "\tfor _, s := range []string{thread} {\n",
			"./pkg/chat/telegram", "TestProbeStartsAtTheTopKnownBeforeTheAttempt|TestProbeStart"},
		{"telegram probe: the transport saves the chat's top before the offset", "pkg/chat/telegram/transport.go",
			"\t\tif err := t.top.save(ups[:handled]); err != nil {\n", "\t\tif err := error(nil); err != nil {\n",
			"./pkg/chat/telegram", "TestProbeStartsAtTheTopKnownBeforeTheAttempt|TestRelayFindsALostFirstRootInALongHistory"},
		{"telegram probe: another chat's saved top bounds nothing", "pkg/chat/telegram/top.go",
			"\tif chat != t.chat {\n", "\tif _ = chat; false {\n",
			"./pkg/chat/telegram", "TestChatTopIsSavedForItsChatOnly"},
		{"telegram probe: a gap below the known top is no top", "pkg/chat/telegram/probe.go",
			"\t\t\tif id <= top {\n", "\t\t\tif false {\n",
			"./pkg/chat/telegram", "TestDecide|TestProbeGoesThroughAGapBelowTheKnownTop|TestLookupThreadGoesThroughChatterBelowTheKnownTop"},
		{"telegram probe: the lookup reads the chat's top known now", "pkg/chat/telegram/lookup.go",
			"\ttop := p.top.get()\n\tc := contentOf(part)\n", "\ttop := int64(0)\n\tc := contentOf(part)\n",
			"./pkg/chat/telegram", "TestProbeGoesThroughAGapBelowTheKnownTop"},
		{"telegram probe: the topic probe reads the chat's top known now", "pkg/chat/telegram/lookupthread.go",
			"\ttop := p.top.get()\n\tname := topicName(part.Text)\n", "\ttop := int64(0)\n\tname := topicName(part.Text)\n",
			"./pkg/chat/telegram", "TestLookupThreadGoesThroughChatterBelowTheKnownTop"},
		{"telegram probe: the topic probe starts above the journaled floor", "pkg/chat/telegram/lookupthread.go",
			"\tstart, err := probeStart(part.After, part.Thread)\n", "\tstart, err := probeStart(\"\", part.Thread)\n",
			"./pkg/chat/telegram", "TestLookupThreadStartsAtTheTopKnownBeforeTheAttempt"},
		{"relay: an attempt journals its poster's floor before the request", "pkg/relay/request.go",
			"\t\t\trec.After = f.Floor(rec.After) // known before the request: journaled first\n", "\t\t\t_ = f.Floor(rec.After)\n",
			"./pkg/relay", "TestAttemptsJournalThePostersFloor"},
		{"relay: a floor-keeping poster is told what the journal confirmed", "pkg/relay/relay.go",
			"\t\t\tf.Saw(remote)\n", "\t\t\t_, _ = f, remote\n",
			"./pkg/relay", "TestAttemptsJournalThePostersFloor"},
	}...)
}
