package main

// The fake ownership store's safety rules. The fake stands in for a real
// backend wherever a fault must happen on cue, so one that drifted from a
// rule would pass code the real stores refuse: the conformance suite and
// the fault tests must catch each rule's removal.
func init() {
	mutants = append(mutants, []mutant{
		{"fakestore: a stop compares the owner decided on", "pkg/ownership/fakestore/proof.go",
			"\tif err := ownership.MaySignal(decided, *cur, want, w.boot); err != nil {\n",
			"\tif err := error(nil); err != nil {\n",
			"./pkg/ownership/fakestore", "Conformance/StopOfRewritten|RecordChangedBeforeSignal"},
		{"a signal compares the owner decided on (every store)", "pkg/ownership/decided.go",
			"\t\t{\"ownerId\", decided.OwnerID, cur.OwnerID},\n",
			"",
			"./pkg/ownership/fsstore", "Conformance/StopOfRewritten|StopOfChangedOwner|Signal"},
		{"fakestore: a live process proves its claim", "pkg/ownership/fakestore/proof.go",
			"\tif why != \"\" {\n",
			"\tif why != \"\" && false {\n",
			"./pkg/ownership/fakestore", "Conformance/(Observe|StopOf)(Unrelated|Copied)"},
		{"fakestore: unknown liveness is never dead", "pkg/ownership/fakestore/proof.go",
			"return ownership.ProcessFacts{Alive: true, Err: fmt.Errorf(\"liveness of pid %d: %w\", s.PID, os.ErrPermission)}",
			"return ownership.ProcessFacts{Err: fmt.Errorf(\"liveness of pid %d: %w\", s.PID, os.ErrPermission)}",
			"./pkg/ownership/fakestore", "Conformance/(ObserveUnknown|StopOfUnprovable)|UnknownLiveness"},
		{"fakestore: each signal checks again", "pkg/ownership/fakestore/stop.go",
			"\tp, err := w.openOwner(name, want, decided)\n\tif err != nil {\n\t\treturn err\n\t}\n",
			"\tp := w.procs[decided.PID]\n",
			"./pkg/ownership/fakestore", "BeforeSignal"},
	}...)
}
