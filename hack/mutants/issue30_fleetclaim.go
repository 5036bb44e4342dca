package main

// The rule of issue 30, item 3 on a fleet's wiring: a daemon that takes
// its name in etcd gets, with the claim, the fleet's bus its relay posts
// from, so a message forwarded by another machine is posted.
func init() {
	mutants = append(mutants, []mutant{
		{"fleet: a daemon's claim comes with the fleet's bus", "cmd/reconciler/fleet.go",
			"\treturn c, fleetbus.ForRelay(c, local, f.log.WithName(\"fleet-outbox\")), nil\n", "\treturn c, nil, nil\n",
			"./cmd/reconciler/systemtest", "TestFleetRelayPostsANonOwnersMessagesOnce"},
	}...)
}
