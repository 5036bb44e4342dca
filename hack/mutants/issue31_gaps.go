package main

// Issue 31's Telegram gaps: a topic whose creation's answer was lost is
// looked up (the topic probe) before any new topic is made, and the
// probe never takes a topic the relay confirmed for another session; the
// id probe takes a message for a part only where the part lies, never
// another session's uncertain post, nor one of its own that reads alike.
func init() {
	mutants = append(mutants, []mutant{
		{"telegram gaps: a thread start whose answer was lost is looked up, not made again", "pkg/relay/request.go",
			"\treturn o.lookup || o == opThread && r.opts.Poster.Threads() != nil\n", "\treturn o.lookup\n",
			"./pkg/chat/telegram", "TestConformance$/RelayCrashMatrix/thread:accepted@m01_thread"},
		{"telegram gaps: the topic probe leaves topics the relay confirmed alone", "pkg/chat/telegram/lookupthread.go",
			"\tif posted || known || confirmed != nil && confirmed(strconv.FormatInt(id, 10)) {\n", "\tif posted || known {\n",
			"./pkg/chat/telegram", "TestLookupThreadLeavesConfirmedTopicsAlone"},
		{"telegram gaps: an edit that lands in another thread is another part's", "pkg/chat/telegram/lookup.go",
			"\t\treturn Foreign, nil\n\t}\n\tmarked, err", "\t\treturn NotModified, nil\n\t}\n\tmarked, err",
			"./pkg/chat/telegram", "TestLookupTellsTwoUncertainPartsApart"},
		{"telegram gaps: 'not modified' counts only where the part lies", "pkg/chat/telegram/lookup.go",
			"\tmarked, err := p.edit(ctx, id, content{text: markText, file: c.file})\n", "\treturn NotModified, nil\n\tmarked, err := p.edit(ctx, id, content{text: markText, file: c.file})\n",
			"./pkg/chat/telegram", "TestLookupTellsTwoUncertainPartsApart"},
		{"telegram gaps: a known message is taken only for a part of its thread", "pkg/chat/telegram/poster.go",
			"\treturn thread + \"\\x00\" + kind + \"\\x00\" + c.text\n", "\treturn kind + \"\\x00\" + c.text\n",
			"./pkg/chat/telegram", "TestLookupTellsAlikePartsApart"},
	}...)
}
