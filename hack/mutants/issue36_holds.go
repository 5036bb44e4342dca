package main

// The rules of issue 36's fleet holds: a hold set on one machine is
// honoured by every other (the etcd hold is read where the name runs, and
// the fleet's wiring keeps holds in etcd, not in each machine's file); a
// refused stop holds nothing anywhere.
func init() {
	mutants = append(mutants, []mutant{
		{"fleet holds: a hold in etcd is read by every machine", "pkg/ownership/etcdstore/holds.go",
			"\tif len(resp.Kvs) == 0 {\n\t\treturn nil, nil\n\t}\n\treturn parseHold(key, resp.Kvs[0].Value)\n",
			"\tif len(resp.Kvs) == 0 || true {\n\t\treturn nil, nil\n\t}\n\treturn parseHold(key, resp.Kvs[0].Value)\n",
			"./pkg/ownership/etcdstore", "TestHoldsAreTheFleets"},
		{"fleet holds: the fleet keeps its holds in etcd, not in each machine's holds.json", "cmd/reconciler/fleet.go",
			"\treturn s, reconcile.FleetHolds(s, agentDir), nil\n",
			"\treturn s, reconcile.FileHolds(agentDir), nil\n",
			"./cmd/reconciler/systemtest", "TestFleetHoldSurvivesTheOwnersKill$"},
		{"fleet holds: a stop where another machine leads holds the name for that machine to stop", "pkg/reconcile/decidecommand.go",
			"\tcase l.cmd.leader != \"\" && l.cmd.sharedHolds:\n",
			"\tcase false:\n",
			"./pkg/reconcile", "TestDecideCommand$"},
		{"fleet holds: a start where another machine leads waits for that machine to start it", "pkg/reconcile/operate.go",
			"\tcase o.Status.Reason == ownership.ReasonLedElsewhere && r.holds.Shared():\n",
			"\tcase false:\n",
			"./cmd/reconciler/systemtest", "TestFleetHoldSurvivesTheOwnersKill$"},
		{"fleet holds: a refused stop holds nothing anywhere", "pkg/reconcile/operate.go",
			"\tcase stepDecline:\n\t\tout.Message = p.message\n\tcase stepHold:\n",
			"\tcase stepDecline:\n\t\tout.Message = p.message\n\t\t_ = hold()\n\tcase stepHold:\n",
			"./cmd/reconciler/systemtest", "TestFleetRefusedStopHoldsNothing"},
		{"holds: a name this machine's holds.json held before the fleet kept holds stays held in a fleet", "pkg/reconcile/holdsbefore.go",
			"\tif err != nil || hold != nil {\n\t\treturn hold, err\n\t}\n\treturn h.before.Hold(name)\n", "\treturn hold, err\n",
			"./pkg/reconcile", "TestFleetHoldsKeepWhatWasHeldBefore"},
	}...)
}
