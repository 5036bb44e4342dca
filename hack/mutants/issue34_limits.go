package main

// The rules of issue 34's part at the services' limits: more Socket Mode
// connections of the app than this daemon's one is TokenInUse (the
// transport down for a reason, so the name is Degraded, never Ready);
// doctor fails two other connections.
func init() {
	mutants = append(mutants, []mutant{
		{"slack: a hello counting other connections of the app is TokenInUse", "pkg/chat/slack/tokeninuse.go",
			"\tif connections > 1 {\n", "\tif connections > 99 {\n",
			"./pkg/chat/slack", "TestSecondConnectionIsTokenInUse"},
		{"doctor: two other Socket Mode connections of the app fail the socket line", "pkg/chat/slack/doctorsocket.go",
			"\t\tcase others == 1:\n", "\t\tdefault:\n",
			"./pkg/chat/slack", "TestDoctorCountsTheAppsConnections|TestSocketModeLine"},
	}...)
}
