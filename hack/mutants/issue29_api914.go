package main

// The rules of issue 29 items 9 and 14: a command sends nothing through a
// symlink at api.sock, and a loop acts only on requests for its own agent
// dir; etcd credentials are in no endpoint and in no daemon's environment.
func init() {
	mutants = append(mutants, []mutant{
		{"localapi: the client sends nothing through a symlink at api.sock", "pkg/localapi/client.go",
			"err == nil && fi.Mode().Type() == fs.ModeSymlink {", "false && err == nil && fi.Mode().Type() == fs.ModeSymlink {",
			"./pkg/localapi", "TestClientRefusesALinkedSocket"},
		{"localapi: a request for another agent dir is refused", "pkg/localapi/dirid.go",
			"\tif req.Dev != loop.Dev || req.Ino != loop.Ino {\n", "\tif false {\n",
			"./pkg/localapi", "TestDecideDir|TestServerRefusesARequestForAnotherDir"},
		{"localapi: a request naming no agent dir is refused", "pkg/localapi/dirid.go",
			"\tcase len(values) == 0:\n\t\treturn fmt.Errorf(", "\tcase len(values) == 0:\n\t\treturn nil\n\t\treturn fmt.Errorf(",
			"./pkg/localapi", "TestDecideDir|TestServerRefusesARequestForAnotherDir"},
		{"localapi: a loop that does not know its agent dir refuses", "pkg/localapi/dirid.go",
			"\tcase loop.Path == \"\":\n", "\tcase false:\n",
			"./pkg/localapi", "TestDecideDir"},
		{"localapi: every request passes the agent dir check", "pkg/localapi/server.go",
			"\t\tif err := decideDir(s.dir, r.Header.Values(DirHeader)); err != nil {\n", "\t\tif err := decideDir(s.dir, r.Header.Values(DirHeader)); false && err != nil {\n",
			"./pkg/localapi", "TestServerRefusesARequestForAnotherDir"},
		{"loop: stop and send for another agent dir act on nothing", "pkg/localapi/server.go",
			"\t\tif err := decideDir(s.dir, r.Header.Values(DirHeader)); err != nil {\n", "\t\tif err := decideDir(s.dir, r.Header.Values(DirHeader)); false && err != nil {\n",
			"./cmd/reconciler", "TestCommandsRefuseAnotherAgentDirsLoop"},
	}...)
}
