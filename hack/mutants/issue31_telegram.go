package main

// The rules of issue 31's Telegram provider: the getUpdates offset that
// confirms an update is saved only after the update landed; the id
// probe never calls a part unposted unless the chat proves it absent;
// agent text never carries an '@' that starts a mention.
func init() {
	mutants = append(mutants, []mutant{
		{"telegram: the offset is saved only after its update landed", "pkg/chat/telegram/transport.go",
			"\tif ev, ok := eventOf(u, t.cfg.ChatID, self); ok {\n", "\tif ev, ok := eventOf(u, t.cfg.ChatID, self); ok && t.offset.save(u.ID+1) == nil {\n",
			"./pkg/chat/telegram", "TestLandSavesTheOffsetOnlyAfterLanding"},
		{"telegram: an update that did not land is not confirmed", "pkg/chat/telegram/transport.go",
			"\t\t\tbreak\n", "\t\t\tcontinue\n",
			"./pkg/chat/telegram", "TestLandSavesTheOffsetOnlyAfterLanding"},
		{"telegram: a probe that learns nothing is undecided, never 'not posted'", "pkg/chat/telegram/probe.go",
			"\t\tdefault:\n\t\t\treturn Undecided, 0, 0\n", "\t\tdefault:\n\t\t\treturn NotPosted, 0, 0\n",
			"./pkg/chat/telegram", "TestDecide"},
		{"telegram: one missing id is not the top of the chat", "pkg/chat/telegram/probe.go",
			"\t\t\tif gap >= topGap {\n", "\t\t\tif gap >= 1 {\n",
			"./pkg/chat/telegram", "TestDecide"},
		{"telegram: an '@' that starts a mention is replaced", "pkg/chat/telegram/markup.go",
			"\t\t\trs[i] = fullwidthAt\n", "\t\t\trs[i] = '@'\n",
			"./pkg/chat/telegram", "TestSafeText"},
		{"telegram: a post's text is made mention-safe", "pkg/chat/telegram/content.go",
			"\tc := content{text: safeText(p.Text), keyboard: keyboardOf(p.Choices)}\n", "\tc := content{text: p.Text, keyboard: keyboardOf(p.Choices)}\n",
			"./pkg/chat/telegram", "TestPostIsPlainAndPingsNobody"},
		{"telegram: the probe leaves parts the relay confirmed alone", "pkg/chat/telegram/lookup.go",
			"\tcase part.Confirmed != nil && part.Confirmed(strconv.FormatInt(id, 10)):\n", "\tcase false:\n",
			"./pkg/chat/telegram", "TestLookupLeavesConfirmedPartsAlone"},
		{"telegram: an undecided probe blocks the session, never 'not posted'", "pkg/chat/telegram/lookup.go",
			"\t\t\treturn \"\", false, undecided(part.Key, fmt.Sprintf(", "\t\t\treturn \"\", false, nil\n\t\t\t_ = undecided(part.Key, fmt.Sprintf(",
			"./pkg/chat/telegram", "TestLookupUndecidedBlocks"},
		{"telegram: a reply that did not land is not confirmed (live)", "pkg/chat/telegram/transport.go",
			"\t\t\tfailed = fmt.Errorf(\"update %d: %w\", u.ID, err)\n\t\t\tbreak\n", "\t\t\t_ = fmt.Errorf(\"update %d: %w\", u.ID, err)\n",
			"./pkg/chat/telegram", "TestAReplyThatDidNotLandComesAgain"},
	}...)
}
