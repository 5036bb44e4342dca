package main

// The rules of issue 30, item 2 and the ownership side of item 3: a
// record names only the words its readers know, a claim's Close ends it,
// and a store's election is what status reports.
func init() {
	mutants = append(mutants, []mutant{
		{"ownership: a relay block reason is one the relay knows", "pkg/ownership/parserelay.go",
			"\tcase !rok || !slices.Contains(blockReasons, rs):\n", "\tcase !rok:\n",
			"./pkg/ownership", "TestParseStateMalformed"},
		{"ownership: an ignored-by key is one of inbound's reasons", "pkg/ownership/parserelay.go",
			"\t\tif !slices.Contains(InboxIgnoredReasons, k) {\n", "\t\tif false {\n",
			"./pkg/ownership", "TestParseStateMalformed"},
		{"fsstore: a closed claim counts as lost", "pkg/ownership/fsstore/close.go",
			"\t\tclose(o.lostCh) // once: lost is never unset\n", "\t\t_ = o.lostCh\n",
			"./pkg/ownership/fsstore", "TestConformance/ClaimClose"},
		{"etcdstore: Leader names who leads", "pkg/ownership/etcdstore/election.go",
			"\treturn string(resp.Kvs[0].Value), nil\n", "\treturn \"\", nil\n",
			"./pkg/ownership/etcdstore", "TestConformance/LeaderOfAPreparedName"},
	}...)
}
