package main

// The mends of issue 36's review: a wait for the machine that leads a
// name holds neither this machine's pass lock nor the name, and lasts as
// long as that machine's stop can; the etcd probe takes no slow cluster
// for a silent one; CI's fleet chaos run cannot pass by being skipped;
// and the review's missing tests.
func init() {
	mutants = append(mutants, []mutant{
		{"leader waits: the pass lock is let go of before a wait for the machine that leads a name", "pkg/reconcile/loopapi.go",
			"\tl.lock.release()\n\tl.r.AwaitLeaders(ctx, results)\n",
			"\tl.r.AwaitLeaders(ctx, results)\n\tl.lock.release()\n",
			"./pkg/reconcile", "TestLeaderWaitHoldsNeitherThePassLockNorTheName"},
		{"leader waits: the wait for the leader's stop lasts as long as an escalated stop on leases can", "pkg/reconcile/leaderwait.go",
			"\tlimit := leaderStopLimit(o, d, r.store.LeaseTTL())\n",
			"\tlimit := o.Graceful + o.Kill + leaderSlack\n",
			"./pkg/reconcile", "TestLeaderStopLimitCoversAnEscalatedStop"},
		{"etcd probe: a cluster answering within the request timeout is live, however short the lease", "pkg/ownership/etcdstore/probe.go",
			"func (s *Store) probeBound() time.Duration { return s.timeout }\n",
			"func (s *Store) probeBound() time.Duration { return min(s.timeout, s.ttl/2) }\n",
			"./pkg/ownership/etcdstore", "TestProbeTakesASlowClusterForALiveOne"},
		{"CI: a test that needs a network namespace fails, not skips, where one is required", "cmd/reconciler/systemtest/netns_linux_test.go",
			"\tif required {\n",
			"\tif false {\n",
			"./cmd/reconciler/systemtest", "TestNetnsVerdict"},
		{"etcd silence memo: a request the memo ended does not renew it", "pkg/ownership/etcdstore/silence.go",
			"\t\treturn &ownership.UnreachableError{Op: op, Err: r.err}\n",
			"\t\ts.quiet.note(time.Now(), r.err)\n\t\treturn &ownership.UnreachableError{Op: op, Err: r.err}\n",
			"./pkg/ownership/etcdstore", "TestSilenceMemoIsRenewedOnlyByANewSilence"},
		{"fleet holds: a hold is written by compare-and-swap, so concurrent stops lose nothing", "pkg/ownership/etcdstore/holds.go",
			"If(clientv3.Compare(clientv3.ModRevision(key), \"=\", modRev))",
			"If(clientv3.Compare(clientv3.ModRevision(key), \">=\", modRev*0))",
			"./pkg/ownership/etcdstore", "TestConcurrentStopsLoseNoHold"},
		{"reaped owners: a reaped owner's revoked lock goes at once", "pkg/ownership/etcdstore/reaped.go",
			"\tif l.revoked != nil {\n",
			"\tif false && l.revoked != nil {\n",
			"./pkg/ownership/etcdstore", "TestReleaseReapedEndsARevokedOwnersLock"},
		{"refused stop: a hold another stop set before this one's write is not lifted", "pkg/reconcile/operate.go",
			"\t\theld, created = true, prior == nil && changed\n",
			"\t\theld, created = true, prior == nil\n",
			"./pkg/reconcile", "TestStopRefusedLeavesAHoldThatLandedBeforeItsWrite"},
		{"etcd watch: asking for a watch of a cluster that does not answer ends within the request timeout", "pkg/ownership/etcdstore/watch.go",
			"\ttimer := time.AfterFunc(s.timeout, func() { cancel(late) })\n",
			"\ttimer := time.AfterFunc(time.Hour, func() { cancel(late) })\n",
			"./pkg/ownership/etcdstore", "TestWatchOfASilentClusterEndsWithinTheRequestTimeout"},
		{"loop: follow asks the store for a watch without the lock status reads take", "pkg/reconcile/loop.go",
			"\tif !watched {\n\t\tif events, cancel, err := l.r.store.Watch(name); err == nil {\n\t\t\tl.mu.Lock()\n",
			"\tl.mu.Lock()\n\tif !watched {\n\t\tif events, cancel, err := l.r.store.Watch(name); err == nil {\n",
			"./pkg/reconcile", "TestLoopStatusAnswersWhileAWatchIsSetUp"},
	}...)
}
