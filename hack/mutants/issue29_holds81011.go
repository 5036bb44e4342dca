package main

// The rules of issue 29 items 8, 10 and 11: a hold never sends a stronger
// signal than its stop asked for; a refused stop holds nothing; a pruned
// name, proven gone, leaves the inventory and the status.
func init() {
	mutants = append(mutants, []mutant{
		{"hold: a hold without --force never escalates", "pkg/reconcile/decide.go",
			"\tcase specStopped, held != nil && held.Force:\n", "\tcase specStopped, held != nil:\n",
			"./pkg/reconcile", "TestStoppingOf|TestHoldWithoutForceNeverKills"},
		{"hold: the stop plan escalates only when asked", "pkg/reconcile/decide.go",
			"\t\t\treturn plan{step: stepStop, escalate: want == stopKill}\n", "\t\t\treturn plan{step: stepStop, escalate: true}\n",
			"./pkg/reconcile", "TestDecide$|TestHoldWithoutForceNeverKills"},
		{"hold: the attempt's stop escalates only when the plan says", "pkg/reconcile/attempt.go",
			"\t\tif a.stop(rec.State, \"stop\", cfg.GracefulTimeout, cfg.KillTimeout, p.escalate) {\n",
			"\t\tif a.stop(rec.State, \"stop\", cfg.GracefulTimeout, cfg.KillTimeout, true) {\n",
			"./pkg/reconcile", "TestHoldWithoutForceNeverKills"},
		{"hold: an owner that outlasted SIGTERM is not signalled again", "pkg/reconcile/decide.go",
			"\t\tcase cls.Signalable && want == stopTerm && rec.State != nil && rec.State.OwnerID == mem.termTimedOut:\n",
			"\t\tcase false:\n",
			"./pkg/reconcile", "TestDecide$|TestHoldWithoutForceNeverKills"},
		{"hold: a stop records whether it was forced", "pkg/reconcile/operate.go",
			"\t\tif _, err := r.setHold(name, &Hold{Force: o.Force}); err != nil {\n",
			"\t\tif _, err := r.setHold(name, &Hold{Force: true}); err != nil {\n",
			"./pkg/reconcile", "TestHoldWithoutForceNeverKills"},
		{"hold: a refused stop writes no hold (held only when sending)", "pkg/reconcile/operate.go",
			"\trec, cls, refusal := r.operable(name, \"stop\", d)\n\tswitch {\n",
			"\trec, cls, refusal := r.operable(name, \"stop\", d)\n\tif refusal == \"\" {\n\t\t_ = hold()\n\t}\n\tswitch {\n",
			"./cmd/reconciler", "TestFleetRefusedStopHoldsNothing"},
		{"fsstore: Sending only once every check passed", "pkg/ownership/fsstore/stop.go",
			"\tdefer proc.Close()\n\tif err := how.BeforeSending(); err != nil {\n",
			"\tdefer proc.Close()\n\tif err := error(nil); err != nil {\n",
			"./pkg/ownership/fsstore", "TestConformance/StopRefusedBySending|TestConformance/StopEndsDecidedOwner"},
		{"etcdstore: Sending only once every check passed", "pkg/ownership/etcdstore/stop.go",
			"\tif err := how.BeforeSending(); err != nil {\n",
			"\tif err := error(nil); err != nil {\n",
			"./pkg/ownership/etcdstore", "TestConformance/StopRefusedBySending|TestConformance/StopEndsDecidedOwner"},
		{"etcdstore: a machine that does not lead sends and holds nothing", "pkg/ownership/etcdstore/stop.go",
			"\tif err := s.mustLead(name); err != nil {\n\t\treturn refuse(err)\n\t}\n\tk := s.keys(name)\n",
			"\tif err := s.mustLead(name); err != nil {\n\t\t_ = how.BeforeSending()\n\t\treturn refuse(err)\n\t}\n\tk := s.keys(name)\n",
			"./cmd/reconciler", "TestFleetRefusedStopHoldsNothing"},
	}...)
}
