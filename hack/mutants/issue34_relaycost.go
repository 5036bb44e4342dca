package main

// Issue 34, item 5 (the relay's own cost): the rules the faster relay
// must keep.
func init() {
	mutants = append(mutants, []mutant{
		{"relay: a failed fence ends the relay before any request", "pkg/relay/request.go",
			"\tif err := r.opts.Fence(); err != nil {\n", "\tif err := r.opts.Fence(); false && err != nil {\n",
			"./pkg/relay", "TestLostOwnershipStopsPosting"},
	}...)
}
