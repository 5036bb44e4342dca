package main

// The rules of issue 33's outbound files: every limit is checked before a
// message's first request; a file part is never re-posted with other
// content than its attempt recorded (after a crash, after a lost answer,
// or changed while it was read); a files/ entry is opened only as a
// regular file of ours, never through a link; send --file copies only a
// regular file, never through a link; maxInboundFileBytes is bounded.
func init() {
	mutants = append(mutants, []mutant{
		{"files: a file over the service's size limit fails before any request", "pkg/relay/files.go",
			"\tif size <= lim.MaxBytes {\n", "\tif true {\n",
			"./pkg/relay", "TestFileLimitsFailBeforeAnyRequest|TestLimitTexts"},
		{"files: more files than the service takes fail before any request", "pkg/relay/files.go",
			"\tcase n > lim.MaxFiles:\n", "\tcase false:\n",
			"./pkg/relay", "TestFileLimitsFailBeforeAnyRequest|TestLimitTexts"},
		{"files: a service that takes no files fails the message, saying so", "pkg/relay/files.go",
			"\tcase lim.MaxFiles == 0:\n", "\tcase false:\n",
			"./pkg/relay", "TestFileLimitsFailBeforeAnyRequest"},
		{"files: an attempt's sum is checked before a re-post after a crash", "pkg/relay/files.go",
			"pending && rec.FileSum != \"\" && rec.FileSum != fp.sum {", "false && pending && rec.FileSum != \"\" && rec.FileSum != fp.sum {",
			"./pkg/relay", "TestChangedEntryAfterAnAttemptFailsTheMessage"},
		{"files: a re-post after a lost answer proves the content first", "pkg/relay/request.go",
			"\t\tif !first && deco.verify != nil {\n", "\t\tif false {\n",
			"./pkg/relay", "TestFileChangedDuringItsUploadFailsTheMessage"},
		{"files: an upload read whole with another sum fails", "pkg/relay/files.go",
			"hex.EncodeToString(s.h.Sum(nil)) != s.want {", "false {",
			"./pkg/relay", "TestFileChangedDuringItsUploadFailsTheMessage"},
		{"files: a files/ entry is opened only as a regular file of ours", "pkg/platform/dirfile.go",
			"\tif err := e.trusted(path); err != nil {\n", "\tif err := e.trusted(path); false && err != nil {\n",
			"./pkg/bus", "TestOpenFileRefusesWhatIsNotARegularFileOfOurs"},
		{"files: a files/ entry is never opened through a link", "pkg/platform/dirfile.go",
			"unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)", "unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC)",
			"./pkg/bus", "TestOpenFileRefusesWhatIsNotARegularFileOfOurs"},
		{"send --file: only a regular file is copied", "pkg/bus/filecopy.go",
			"\tcase !st.Mode().IsRegular():\n", "\tcase false:\n",
			"./pkg/bus", "TestAddFile"},
		{"send --file: a link is refused, never followed", "pkg/bus/filecopy.go",
			"unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)", "unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)",
			"./pkg/bus", "TestAddFile"},
		{"files: a message with files is never coalesced away", "pkg/relay/session.go",
			"\tif !rd.Close && len(m.Attachments) == 0 && rd.TextFile == nil {\n", "\tif !rd.Close {\n",
			"./pkg/relay", "TestAReplacingMessageWithFilesIsNotCoalescedAway"},
		{"spec: maxInboundFileBytes is bounded", "pkg/spec/files.go",
			"\tif n < 1 || n > MaxInboundFileBytes {\n", "\tif _ = n; false {\n",
			"./pkg/spec", "TestFilesFields"},
	}...)
}
