package main

// Issue 34, item 5 (the relay's own cost): the rules the faster relay
// must keep.
func init() {
	mutants = append(mutants, []mutant{
		{"relay: a failed fence ends the relay before any request", "pkg/relay/request.go",
			"\tif err := r.opts.Fence(); err != nil {\n", "\tif err := r.opts.Fence(); false && err != nil {\n",
			"./pkg/relay", "TestLostOwnershipStopsPosting"},
		{"dirwatch: a poke that names no file is told to the filter", "pkg/dirwatch/dirwatch.go",
			"\tif want != nil {\n\t\twant(\"\")\n", "\tif false && want != nil {\n\t\twant(\"\")\n",
			"./pkg/dirwatch", "TestDirWatchNamelessPokeIsToldToTheFilter"},
		{"relay: a nameless poke merged into names still lists the whole outbox", "pkg/relay/touched.go",
			"\tif all || len(t.names) == 0 {\n", "\tif len(t.names) == 0 {\n",
			"./pkg/relay", "TestTouchedTake"},
		{"relay: a message leaves the outbox only once its done records are durable", "pkg/relay/finish.go",
			"\tif err := r.flushDone(ctx); err != nil {\n", "\tif err := error(nil); err != nil {\n",
			"./pkg/relay", "TestDoneIsDurableBeforeTheFileLeaves"},
		{"relay: a flush waits for the writes that took done records before it", "pkg/relay/request.go",
			"\tfor _, w := range waits {\n", "\tfor _, w := range waits[:0] {\n",
			"./pkg/relay", "TestFlushWaitsForADoneAnotherWriteTook"},
	}...)
}
