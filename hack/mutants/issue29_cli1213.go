package main

// The rules of issue 29, items 12 and 13: a pass that cannot see a name's
// holder (another PID namespace) refuses it as CannotExamine and writes
// none of the loop's files (status.json, held.json, events) nor prunes a
// name it cannot prove gone; a command
// that only looks refuses an agent dir that is none; status exits 2 on an
// invalid spec.
func init() {
	const pidns = "TestOnceThatCannotSeeTheDaemonsLeavesTheLoopsStatus"
	mutants = append(mutants, []mutant{
		{"cli1213: a name lock holder with no PID here is unseen", "pkg/ownership/fsstore/namelock.go",
			"\te.Unseen = h.PID == 0 && h.UID >= 0\n", "\te.Unseen = false\n",
			"./cmd/reconciler/systemtest", pidns},
		{"cli1213: an unseen holder is refused as CannotExamine", "pkg/reconcile/decidestart.go",
			"\tcase unseenOccupant(name, err) != \"\":\n", "\tcase false:\n",
			"./cmd/reconciler/systemtest", pidns},
		{"cli1213: a blind pass proves no pruned name gone", "pkg/reconcile/decideprune.go",
			"\tif p := ensureGone(l, \"\"); p.step != stepStopped {\n", "\tif p := ensureGone(l, \"\"); p.step != stepStopped && p.step != stepCannotExamine {\n",
			"./cmd/reconciler/systemtest", "TestBlindPassPrunesNothing"},
		{"cli1213: a pass with an unseen name leaves status.json", "pkg/reconcile/pass.go",
			"\tif len(unseen) == 0 {\n", "\tif true {\n",
			"./cmd/reconciler/systemtest", pidns},
		{"cli1213: an unseen name's held owner is not saved", "pkg/reconcile/reconciler.go",
			"\tif !a.unseen {\n\t\t// What a reconciler", "\tif true {\n\t\t// What a reconciler",
			"./cmd/reconciler/systemtest", pidns},
		{"cli1213: an unseen name writes no event", "pkg/reconcile/reconciler.go",
			"\t\tif !a.unseen {\n\t\t\tr.phaseEvent(", "\t\tif true {\n\t\t\tr.phaseEvent(",
			"./cmd/reconciler/systemtest", pidns},
		{"cli1213: a look at an agent dir that is none is refused", "cmd/reconciler/agentdircheck.go",
			"\tif err := checkAgentDir(agentDir, specPath, g.agentDirSource()); err != nil {\n",
			"\tif err := checkAgentDir(agentDir, specPath, g.agentDirSource()); false && err != nil {\n",
			"./cmd/reconciler/systemtest", "TestStatusOnAnAgentDirThatIsNoneIsAnError"},
		{"cli1213: status exits 2 on an invalid spec", "cmd/reconciler/status.go",
			"\t\t\tif !st.SpecValid {\n", "\t\t\tif false {\n",
			"./cmd/reconciler/systemtest", "TestStatusWithoutItsSpecNamesTheMissingFile"},
		{"cli1213: a held name whose holder is unseen is not called stopped", "pkg/reconcile/decidestop.go",
			"\tif m := unseenOccupant(l.name, l.occupant); m != \"\" {\n",
			"\tif m := unseenOccupant(l.name, l.occupant); false && m != \"\" {\n",
			"./cmd/reconciler/systemtest", "TestBlindPassLeavesATimedOutStopRunning"},
	}...)
}
