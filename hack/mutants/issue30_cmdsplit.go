package main

// Rules of issue 30's split of cmd/reconciler: describe shows the record
// of the backend the flags chose (a fleet's etcd), never a file of this
// machine's that the backend does not keep.
func init() {
	mutants = append(mutants, []mutant{
		{"describe: the record comes from the chosen store", "cmd/reconciler/describe.go",
			"record := func(name string) ownership.Record { return store.Observe(name).Record }",
			"record := func(name string) ownership.Record { return ownership.Record{Paths: ownership.PathsFor(agentDir, name)} }",
			"./cmd/reconciler/systemtest", "TestFleetDescribeShowsTheStoresRecord"},
	}...)
}
