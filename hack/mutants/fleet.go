package main

// The rules of the fleet (issue 15): a claim gives up its name a margin
// before the server may expire its lease; every owner's write is guarded
// by the election revision; a lost claim ends a component's start; a
// relay's stop ends a finish waiting on the cluster. And three found by
// the chaos runs: a readiness wait looks again without its watch, a 429
// needs no settling, a name's outbox reaches etcd in id order, and the
// puller makes a removed relay outbox again.
func init() {
	mutants = append(mutants, []mutant{
		{"etcd: a claim gives up a margin before its lease can expire", "pkg/ownership/etcdstore/lease.go",
			"func Margin(ttl time.Duration) time.Duration { return max(time.Second, ttl*3/10) }\n",
			"func Margin(ttl time.Duration) time.Duration { return 0 }\n",
			"./pkg/ownership/etcdstore", "TestClaimGivesUpBeforeTheServerCanExpireIt"},
		{"etcd: an owner's write is guarded by the election revision", "pkg/ownership/etcdstore/claim.go",
			"\t\tIf(clientv3.Compare(clientv3.CreateRevision(c.keys.owner), \"=\", c.rev)).\n", "\t\tIf().\n",
			"./pkg/ownership/etcdstore", "TestRevocationFencesAtOnceAndHoldsTheNameOneTTL"},
		{"daemon: a lost claim ends a component's start", "pkg/chat/start.go",
			"\tstartCtx, cancel := context.WithCancel(ctx)\n", "\tstartCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))\n",
			"./pkg/chat", "TestRunDaemonLosingItsNameWhileStartingClosesTheTransport"},
		{"fleet relay: the stop ends a finish waiting on the cluster", "pkg/chat/relay.go",
			"\t\t\t\tctx, cancel := context.WithTimeout(finishing, fleetTimeout)\n", "\t\t\t\tctx, cancel := context.WithTimeout(context.WithoutCancel(finishing), fleetTimeout)\n",
			"./pkg/chat", "TestFleetRelayStopEndsAFinishWaitingOnTheCluster"},
		{"loop: a readiness wait looks again without its watch", "pkg/reconcile/spawn.go",
			"\t\tcase <-recheck.C:\n", "\t\tcase <-make(chan time.Time):\n",
			"./pkg/reconcile", "TestReadyWaitLooksAgainWithoutItsWatch"},
		{"fleetbus: a name's outbox is forwarded in id order", "pkg/fleetbus/forward.go",
			"\"error\", err.Error())\n\t\t\treturn\n", "\"error\", err.Error())\n",
			"./pkg/fleetbus", "TestForwardKeepsOrderPastAnUnansweredStore"},
		{"fleetbus: the puller makes the relay's outbox again", "pkg/fleetbus/pull.go",
			"\tif err := bus.EnsureDirs(p.bus); err != nil {\n\t\tp.log.Error(err, \"the relay's outbox cannot be made", "\tif err := error(nil); err != nil {\n\t\tp.log.Error(err, \"the relay's outbox cannot be made",
			"./pkg/fleetbus", "TestPullerMakesTheRelaysOutboxAgain"},
		{"relay: an attempt answered with a 429 needs no settling", "pkg/relay/request.go",
			"\t\t\tunlanded = !pending || a.rec.Thread != rec.Thread\n", "\t\t\tunlanded = a.rec.Thread != rec.Thread\n",
			"./pkg/relay", "TestRateLimitedAttemptNeedsNoSettling"},
	}...)
}
