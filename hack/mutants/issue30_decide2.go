package main

// Rules of issue 30 that moved into decide with the operator's commands:
// a stop or restart is refused, or allowed, by decideCommand alone.
func init() {
	mutants = append(mutants, []mutant{
		{"command: an owner that cannot be proved is never signalled by a command", "pkg/reconcile/decidecommand.go",
			"\tcase cls.Class == ownership.ClassMalformed, cls.Class == ownership.ClassForeign, cls.AmbiguouslyLive:\n", "\tcase false:\n",
			"./pkg/reconcile", "TestDecideCommand|TestDecideSteps"},
		{"command: a newer owner is never signalled by a command", "pkg/reconcile/decidecommand.go",
			"\tcase cls.Class == ownership.ClassNewer:\n", "\tcase false:\n",
			"./pkg/reconcile", "TestDecideCommand|TestDecideSteps"},
		{"command: a stop where another machine leads is declined", "pkg/reconcile/decidecommand.go",
			"\tcase l.cmd.ledElsewhere != \"\":\n", "\tcase false:\n",
			"./pkg/reconcile", "TestDecideCommand|TestDecideSteps"},
		{"command: a stop escalates only when forced", "pkg/reconcile/decidecommand.go",
			"\t\treturn plan{step: stepHoldStop, escalate: l.want == stopKill}\n", "\t\treturn plan{step: stepHoldStop, escalate: true}\n",
			"./pkg/reconcile", "TestDecideCommand"},
		{"command: a restart never lifts a hold", "pkg/reconcile/decidecommand.go",
			"\tcase l.hold != nil:\n", "\tcase false:\n",
			"./pkg/reconcile", "TestDecideCommand|TestDecideSteps"},
		{"command: a restart of a name the spec stops is declined", "pkg/reconcile/decidecommand.go",
			"\tcase l.cmd.specStopped:\n", "\tcase false:\n",
			"./pkg/reconcile", "TestDecideCommand|TestDecideSteps"},
		{"command: a stop is not OK while the tracked owner runs without its record", "pkg/reconcile/decidecommand.go",
			"\tif t := l.tracked.owner; t != nil && l.tracked.alive && (l.rec.State == nil || l.rec.State.OwnerID != t.OwnerID) {\n", "\tif t := l.tracked.owner; false && t != nil {\n",
			"./pkg/reconcile", "TestDecideCommand|TestDecideSteps"},
	}...)
}
