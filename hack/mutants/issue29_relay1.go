package main

// The rules of issue 29, item 1: a place that went away never fails a
// message. A thread (Slack: a root) deleted while the channel is
// reachable is made again and the session goes on there; a channel out
// of reach blocks with the backlog kept.
func init() {
	mutants = append(mutants, []mutant{
		{"relay29: a place the service says is gone is made again", "pkg/relay/request.go",
			"\t\tif KindOf(err) == Gone && o != opRoot {\n", "\t\tif false {\n",
			"./pkg/chat", "TestRelayPlaceWentAwayFailsNothing"},
		{"relay29: a later generation's root forgets the deleted place", "pkg/relay/state.go",
			"\t\tss.gen, ss.root, ss.thread = gen, \"\", \"\"\n", "\t\tss.gen = gen\n",
			"./pkg/relay", "TestStatePlaceGenerations"},
		{"relay29: records of a place since replaced change nothing", "pkg/relay/state.go",
			"\tif gen < ss.gen {\n", "\tif false {\n",
			"./pkg/relay", "TestStatePlaceGenerations"},
		{"relay29: an edit reaches only parts in the session's current thread", "pkg/relay/session.go",
			"t.session == session && t.thread == ss.thread {", "t.session == session {",
			"./pkg/relay", "TestReplacedOnlyInTheCurrentThread"},
		{"relay29: an attempt made in a deleted thread is not looked up", "pkg/relay/request.go",
			"\t\t\tunlanded = !pending || a.rec.Thread != rec.Thread\n", "\t\t\tunlanded = !pending\n",
			"./pkg/chat", "TestRelayPlaceWentAwayFailsNothing"},
		{"relay29: a new place is named as before", "pkg/relay/session.go",
			"\t\t\tname = ss.name // named as before\n", "\t\t\t_ = ss.name\n",
			"./pkg/chat", "TestRelayPlaceWentAwayFailsNothing/discord"},
		{"relay29: a new place's root says it continues a deleted thread", "pkg/relay/session.go",
			"\t\ttext = continuedRoot(ss.rootText, rd.Root)\n", "\t\t_ = continuedRoot\n",
			"./pkg/chat", "TestRelayPlaceWentAwayFailsNothing"},
		{"relay29: discord looks the parent up before calling a thread gone", "pkg/chat/discord/threadgone.go",
			"\t\tif cerr := p.parentReachable(ctx); cerr != nil {\n", "\t\tif cerr := error(nil); cerr != nil {\n",
			"./pkg/chat/discord", "TestThreadDeletedIsGoneChannelUnreachableIsBlocked"},
		{"relay29: discord Unknown Channel in a thread is not refused", "pkg/chat/discord/threadgone.go",
			"\t\treturn &relay.Error{Kind: relay.Gone, Code: re.Code,\n", "\t\treturn &relay.Error{Kind: relay.Refused, Code: re.Code,\n",
			"./pkg/chat", "TestRelayPlaceWentAwayFailsNothing/discord"},
		{"relay29: discord a root deleted before its thread is gone", "pkg/chat/discord/poster.go",
			"\tcase errors.As(err, &re) && re.Code == fmt.Sprint(codeUnknownMessage):\n", "\tcase false:\n",
			"./pkg/chat/discord", "TestThreadDeletedIsGoneChannelUnreachableIsBlocked"},
		{"relay29: slack looks the channel up before calling a root gone", "pkg/chat/slack/threadgone.go",
			"\tif blocked := p.channelReachable(ctx); blocked != nil {\n", "\tif blocked := (*relay.Error)(nil); blocked != nil {\n",
			"./pkg/chat/slack", "TestDeletedRootIsGoneChannelUnreachableIsBlocked"},
		{"relay29: slack thread_not_found on a reply is gone, not refused", "pkg/chat/slack/poster.go",
			"\t\treturn \"\", p.inThread(ctx, part.Thread, p.fail(\"posting \"+part.Key, err))\n", "\t\treturn \"\", p.fail(\"posting \"+part.Key, err)\n",
			"./pkg/chat", "TestRelayPlaceWentAwayFailsNothing/slack"},
		{"relay29: slack an edit in a deleted thread is gone", "pkg/chat/slack/poster.go",
			"\t\treturn p.editGone(ctx, e.Thread, p.fail(\"editing \"+e.RemoteID, err))\n", "\t\treturn p.fail(\"editing \"+e.RemoteID, err)\n",
			"./pkg/chat/slack", "TestDeletedRootIsGoneChannelUnreachableIsBlocked"},
		{"relay29: fakediscord a channel's threads are unknown with it", "pkg/chat/fakediscord/messages.go",
			"\t\t\tif s.faults.unknown[s.threads[i].ParentID] {\n", "\t\t\tif false {\n",
			"./pkg/chat/discord", "TestThreadDeletedIsGoneChannelUnreachableIsBlocked"},
	}...)
}
