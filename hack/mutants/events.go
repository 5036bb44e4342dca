package main

// The rules of the files other processes write and this one reads (the
// event history, daemon.log) and of the history's appends and rotations.
func init() {
	mutants = append(mutants, []mutant{
		{"linefile: a symbolic link is not followed", "pkg/linefile/open.go",
			"os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK", "os.O_RDONLY|syscall.O_NONBLOCK",
			"./pkg/linefile", "TestOpenRefusesSymlinkAndFIFO"},
		{"linefile: only a regular file is read (a FIFO would block)", "pkg/linefile/open.go",
			"\tif !fi.Mode().IsRegular() {\n", "\tif false {\n",
			"./pkg/linefile", "TestOpenRefusesSymlinkAndFIFO"},
		{"daemonlog: a symlinked daemon dir is not read through", "pkg/daemonlog/file.go",
			"\tcase fi.Mode()&fs.ModeSymlink != 0:\n", "\tcase false:\n",
			"./pkg/daemonlog", "TestReadRefusesFIFOAndSymlinks"},
		{"events: appends never follow a symbolic link", "pkg/events/log.go",
			"os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK", "os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK",
			"./pkg/events", "TestRefusesSymlinkAndFIFO"},
		{"events: a line fits in one capped write", "pkg/events/event.go",
			"\t\tif len(data) < MaxLine {\n", "\t\tif true {\n",
			"./pkg/events", "TestLineCapped"},
		{"events: messages are redacted", "pkg/events/event.go",
			"\te.Message = redact.Text(e.Message)\n", "\t_ = redact.Text\n",
			"./pkg/events", "TestMessagesRedacted"},
		{"events: a file rotated by another appender is not rotated again", "pkg/events/log.go",
			"\tif err != nil || !os.SameFile(cur, full) {\n", "\tif err != nil || (false && !os.SameFile(cur, full)) {\n",
			"./pkg/events", "TestRotateTwiceRotatesOnce"},
		{"events: rotations take the lock", "pkg/events/log.go",
			"\tif unlock == nil {\n", "\tif false {\n",
			"./pkg/events", "TestRotationWaitsForTheLock"},
		{"events: what is not a valid event is skipped", "pkg/events/read.go",
			"\tif l.Truncated || json.Unmarshal(l.Text, &e) != nil || e.check() != nil {\n", "\tif json.Unmarshal(l.Text, &e) != nil {\n",
			"./pkg/events", "TestMalformedLinesSkipped"},
		{"linefile: untrusted text is made safe to print", "pkg/linefile/printable.go",
			"\tif clean {\n", "\tif clean || true {\n",
			"./pkg/linefile", "TestPrintable"},
	}...)
}
