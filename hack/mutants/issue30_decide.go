package main

// The rules issue 30 moved into decide: a name wanted stopped expects no
// owner (a stopped record is then no crash); what an effect found is
// judged before anything else (a failed stop never lets a spawn follow);
// the live look shows a stop that timed out as decide says it; the
// attempt's report is decide's.
func init() {
	mutants = append(mutants, []mutant{
		{"decide: a name wanted stopped expects no owner", "pkg/reconcile/decide.go",
			"\t\tp.expectNone = true\n", "",
			"./pkg/reconcile", "TestDecide$"},
		{"decide: a failed stop is reported, never followed by a spawn", "pkg/reconcile/decide.go",
			"\tcase l.stopErr != nil:\n\t\treturn stopFailed(l), true\n", "",
			"./pkg/reconcile", "TestDecideSteps"},
		{"view: a stop that timed out is shown as decide says it", "pkg/reconcile/view.go",
			" || p.step == stepStopTimedOut:\n", ":\n",
			"./pkg/reconcile", "TestLiveLook"},
		{"attempt: the report is decide's plan", "pkg/reconcile/attempt.go",
			"\ta.degraded, a.requeue, a.unseen, a.leaves = p.degraded, p.requeue, p.unseen, p.leaves\n", "",
			"./pkg/reconcile", "TestPassJudgesTheRelay|TestRefusalIsLoggedAtErrorLevel"},
	}...)
}
