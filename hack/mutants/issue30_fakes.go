package main

// The rules of issue 30's fakes skeleton: every 429 answered is counted by
// the request log, whichever fake answered it; a relay ID stored twice is
// a duplicate.
func init() {
	mutants = append(mutants, []mutant{
		{"fakeserver: the log counts every 429 answered", "pkg/chat/internal/fakeserver/requests.go",
			"\tif status == http.StatusTooManyRequests {\n", "\tif false {\n",
			"./pkg/chat/fakeslack", "TestMethodLimit"},
		{"fakeserver: a relay ID stored twice is a duplicate", "pkg/chat/internal/fakeserver/oracle.go",
			"\tif s.oracle.stored[id]++; s.oracle.stored[id] == 2 {\n", "\tif s.oracle.stored[id]++; s.oracle.stored[id] == 3 {\n",
			"./pkg/chat/fakeslack", "TestOracleCountsRelayKeys"},
	}...)
}
