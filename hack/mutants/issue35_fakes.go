package main

// The rules of issue 35's fakes and doctor: `fakes --agent-dir` replaces
// only the files it wrote; doctor's agent dir check refuses a directory
// the loop would refuse; a token the service refuses fails its line.
func init() {
	mutants = append(mutants, []mutant{
		{"fakes: a spec it did not write is left as it is", "pkg/demo/agentdir.go",
			"\tcase !ours(old):\n", "\tcase !ours(old) && false:\n",
			"./pkg/demo", "TestWriteAgentDirLeavesWhatIsNotItsOwn"},
		{"doctor: a records dir the loop would refuse fails the agent dir check", "pkg/doctor/local.go",
			"\t\tif err := atomicfile.JudgePrivate(st, dir); err != nil {\n", "\t\tif err := atomicfile.JudgePrivate(st, dir); false && err != nil {\n",
			"./pkg/doctor", "TestAgentDir"},
		{"doctor: a clock off by more than MaxSkew fails", "pkg/doctor/clock.go",
			"\tif skew.Abs() > MaxSkew {\n", "\tif false {\n",
			"./pkg/doctor", "TestCheckClock"},
		{"doctor: a token Discord refuses fails its line", "pkg/chat/discord/doctor.go",
			"\t\treturn append([]doctor.Line{tokenLine(err, d.APIURL)}, timed.Clock(\"Discord\")...)\n", "\t\treturn append([]doctor.Line{doctor.Pass(\"token\", \"\")}, timed.Clock(\"Discord\")...)\n",
			"./pkg/chat/discord", "TestConformance/Doctor"},
	}...)
}
