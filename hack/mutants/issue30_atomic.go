package main

// The rules of issue 30, item 2, for the atomic files: pkg/atomicfile is a
// leaf any package may use (pkg/reconcile among them), and a write is
// durable only once its directory is fsynced too.
func init() {
	mutants = append(mutants, []mutant{
		{"atomicfile imports nothing of ours", "pkg/atomicfile/sync.go",
			"import (\n\t\"fmt\"\n",
			"import (\n\t_ \"gjc.dev/reconciler/pkg/spec\"\n\t\"fmt\"\n",
			"./internal/layout", "TestImportsFollowTheLayout"},
		{"atomicfile: a write fsyncs its directory, so the rename is durable", "pkg/atomicfile/write.go",
			"\tif err := SyncDir(filepath.Dir(path)); err != nil {\n\t\treturn fmt.Errorf(\"write %s: renamed into place, but %w\", path, err)\n",
			"\tif dir := filepath.Dir(path); dir == \"\" {\n\t\treturn fmt.Errorf(\"write %s: renamed into place, but %w\", path, SyncDir(dir))\n",
			"./pkg/atomicfile", "TestDeferDirSyncs"},
	}...)
}
