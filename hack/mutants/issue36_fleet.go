package main

// The rules of issue 36's first part: only a request the cluster left
// unanswered is its silence, a silence found is remembered for a moment
// (so a look at many names costs one request's bound), and a request the
// memo ended is not noted again (or the memo would outlive the silence).
func init() {
	mutants = append(mutants, []mutant{
		{"etcdstore: an answer that refuses is not silence", "pkg/ownership/etcdstore/silence.go",
			"\tcase codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:\n", "\tcase codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.InvalidArgument, codes.PermissionDenied, codes.OutOfRange:\n",
			"./pkg/ownership/etcdstore", "TestSilentTellsSilenceFromAnAnswer"},
		{"etcdstore: a silence is remembered for the memo only", "pkg/ownership/etcdstore/silence.go",
			"\tif q.err == nil || now.Sub(q.at) >= silenceMemo || now.Before(q.at) {\n", "\tif q.err == nil || now.Before(q.at) {\n",
			"./pkg/ownership/etcdstore", "TestSilenceIsRememberedForTheMemoOnly"},
		{"etcdstore: a silence found is remembered", "pkg/ownership/etcdstore/silence.go",
			"\ts.quiet.note(time.Now(), err)\n", "\t_ = err\n",
			"./pkg/ownership/etcdstore", "TestUnreachableClusterTouchesNothing"},
	}...)
}

// The rules of issue 36's second part: a daemon its parent reaped is
// released in the store before the next look judges it, and only that
// exact owner's lock is released.
func init() {
	mutants = append(mutants, []mutant{
		{"reconcile: a reaped spawn is released before the look", "pkg/reconcile/attempt.go",
			"\ta.releaseReaped()\n", "",
			"./pkg/reconcile", "TestReapedChildIsReleasedBeforeTheLook"},
		{"etcdstore: only the reaped owner's lock is released", "pkg/ownership/etcdstore/reaped.go",
			"return h.OwnerID == ownerID && h.PID == pid && h.Machine == s.machine", "return h.OwnerID == ownerID",
			"./pkg/ownership/etcdstore", "TestReleaseReapedEndsOnlyThatOwnersHold"},
		{"fleet: a name refused for a store that did not answer is looked at again soon", "pkg/reconcile/decide.go",
			"\t\tp.requeue = unreachableRetry\n", "\t\tp.requeue = 0\n",
			"./pkg/reconcile", "TestUnreachableRefusalIsLookedAtAgainSoon"},
	}...)
}
