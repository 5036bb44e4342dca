package main

// The rules of issue 35's service install: nothing is installed unless its
// check passes; a unit says exactly the paths it was given (systemd reads
// '%' as a specifier and '$' as a variable in an argument); an executable
// systemd cannot run, or a relative path, is refused before anything is
// written.
func init() {
	mutants = append(mutants, []mutant{
		{"service: a unit the checker refuses is not installed", "pkg/service/install.go",
			"\tif err := Verify(ctx, h, m); err != nil {\n", "\tif err := Verify(ctx, h, m); false && err != nil {\n",
			"./pkg/service", "TestInstallRefusedByTheCheckerInstallsNothing"},
		{"service: verify's lines about the unit fail it, exit 0 or not", "pkg/service/manager.go",
			"\tcase len(problems) > 0:\n", "\tcase false:\n",
			"./pkg/service", "TestJudgeSystemdVerify|TestInstallRefusedByTheCheckerInstallsNothing"},
		{"service: '%' in the executable's path is doubled", "pkg/service/systemd.go",
			"\tescaped := strings.ReplaceAll(path, \"%\", \"%%\")\n", "\tescaped := path\n",
			"./pkg/service", "TestSystemdQuote|TestSystemdUnitVerifies"},
		{"service: '$' in an argument is doubled", "pkg/service/systemd.go",
			"\"%\", \"%%\", \"$\", \"$$\").Replace(word)\n", "\"%\", \"%%\").Replace(word)\n",
			"./pkg/service", "TestSystemdQuote"},
		{"service: an executable path with a quote or a backslash is refused", "pkg/service/systemd.go",
			"\tif strings.ContainsAny(l.Binary, \"\\\"'\\\\\") {\n", "\tif false {\n",
			"./pkg/service", "TestSystemdRefusesQuotedExecutables"},
		{"service: a relative path is refused", "pkg/service/unit.go",
			"\t\tif !filepath.IsAbs(p.path) {\n", "\t\tif false {\n",
			"./pkg/service", "TestLoopCheck"},
	}...)
}
