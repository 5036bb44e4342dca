package main

// Issue 31's Telegram gaps: a topic whose creation's answer was lost is
// looked up (the topic probe) before any new topic is made, and the
// probe never takes a topic the relay confirmed for another session.
func init() {
	mutants = append(mutants, []mutant{
		{"telegram gaps: a thread start whose answer was lost is looked up, not made again", "pkg/relay/request.go",
			"\treturn o.lookup || o == opThread && threads\n", "\treturn o.lookup || o == opThread && threads && false\n",
			"./pkg/chat/telegram", "TestConformance$/RelayCrashMatrix/thread:accepted@m01_thread"},
		{"telegram gaps: the topic probe leaves topics the relay confirmed alone", "pkg/chat/telegram/lookupthread.go",
			"\tif posted || known || confirmed != nil && confirmed(strconv.FormatInt(id, 10)) {\n", "\tif posted || known {\n",
			"./pkg/chat/telegram", "TestLookupThreadLeavesConfirmedTopicsAlone"},
	}...)
}
