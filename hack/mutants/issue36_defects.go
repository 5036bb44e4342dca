package main

// The mends of issue 36's review: a wait for the machine that leads a
// name holds neither this machine's pass lock nor the name.
func init() {
	mutants = append(mutants, []mutant{
		{"leader waits: the pass lock is let go of before a wait for the machine that leads a name", "pkg/reconcile/loopapi.go",
			"\tl.lock.release()\n\tl.r.AwaitLeaders(ctx, results)\n",
			"\tl.r.AwaitLeaders(ctx, results)\n\tl.lock.release()\n",
			"./pkg/reconcile", "TestLeaderWaitHoldsNeitherThePassLockNorTheName"},
	}...)
}
