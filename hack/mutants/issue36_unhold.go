package main

// A refused stop lifts the fleet hold it wrote, never one that another
// stop (on any machine) has relied on since: every stop writes the hold,
// and the lift is a compare-and-delete on the revision of its own write.
func init() {
	mutants = append(mutants, []mutant{
		{"fleet holds: a stop writes the hold even when it finds it held, so a refused stop's lift sees it", "pkg/ownership/etcdstore/holds.go",
			"\tnext, changed := h.Merged(cur)\n\tdata, err := json.Marshal(next)\n",
			"\tnext, changed := h.Merged(cur)\n\tif !changed {\n\t\treturn false, modRev, nil\n\t}\n\tdata, err := json.Marshal(next)\n",
			"./pkg/ownership/etcdstore", "TestUnholdKeepsAHoldAnotherStopReliesOn"},
		{"fleet holds: Unhold deletes only the hold as this store last wrote it", "pkg/ownership/etcdstore/holds.go",
			"\ttxn, err := s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), \"=\", rev)).\n",
			"\ttxn, err := s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), \">\", rev*0)).\n",
			"./pkg/ownership/etcdstore", "TestUnholdKeepsAHoldAnotherStopReliesOn"},
		{"refused stop: the hold it wrote goes through Unhold, not an unconditional let-go", "pkg/reconcile/operate.go",
			"\t\t\t\tswitch lifted, uerr := r.unhold(name); {\n",
			"\t\t\t\tswitch lifted, uerr := r.setHold(name, nil); {\n",
			"./pkg/reconcile", "TestRefusedStopKeepsAHoldAnotherStopReliesOn"},
		{"fleet holds: only a hold this write made where none was is the store's to lift", "pkg/ownership/etcdstore/holds.go",
			"\t\t\tif created {\n\t\t\t\ts.written[name] = rev\n",
			"\t\t\tif created || true {\n\t\t\t\ts.written[name] = rev\n",
			"./pkg/ownership/etcdstore", "TestUnholdLeavesAHoldItOnlyMergedInto"},
	}...)
}
