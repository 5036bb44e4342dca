package main

// The rules of issue 29's items 3 and 5: the relay judges its bus at
// every look through descriptors (no link followed, its uid, not open to
// others), reads only its uid's regular files and blocks, touching
// nothing, while the bus is refused; a file not yet a message waits its
// grace; a failed/ record is never replaced.
func init() {
	mutants = append(mutants, []mutant{
		{"bus dir: a symbolic link is never followed", "pkg/platform/dirfd.go",
			"\tfd, err := openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)\n",
			"\tfd, err := openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)\n",
			"./pkg/bus", "TestOpenBoxRefusesASwappedDirectory"},
		{"bus dir: one others may write into is refused by its descriptor", "pkg/atomicfile/privatedir.go",
			"\tcase st.Mode&0o022 != 0:\n", "\tcase false:\n",
			"./pkg/bus", "TestOpenBoxRefusesAnOpenedOutbox"},
		{"bus dir: another uid's is refused by its descriptor", "pkg/atomicfile/privatedir.go",
			"\tcase st.UID != uid:\n", "\tcase false:\n",
			"./pkg/bus", "TestOpenBoxRefusesAnOpenedOutbox"},
		{"outbox: another uid's file is never read", "pkg/platform/dirfd.go",
			"\tif !e.Mine() {\n", "\tif false {\n",
			"./pkg/relay", "TestAnotherUIDsFileIsNeverPosted"},
		{"outbox: another uid's file is left in place, unread", "pkg/bus/box.go",
			"\tcase !e.Mine():\n", "\tcase false:\n",
			"./pkg/bus", "TestFailLeavesNonRegularInPlace"},
		{"relay: a refused bus blocks the relay", "pkg/relay/busbox.go",
			"\tr.setBlock(busBlock, b)\n", "\t_ = b\n",
			"./pkg/relay", "TestOutboxSwappedForALinkIsNeverFollowed"},
		{"outbox: a young file that is not a message yet waits its grace", "pkg/bus/judge.go",
			"\treturn Later, mtime.Add(Grace)\n", "\treturn Refuse, time.Time{}\n",
			"./pkg/relay", "TestInPlaceWriterIsNotFailedHalfWay"},
		{"outbox: a file not ours is refused at once, not waited for", "pkg/bus/judge.go",
			"\tcase errors.Is(err, platform.ErrUnsafeFile):\n", "\tcase false && errors.Is(err, platform.ErrUnsafeFile):\n",
			"./pkg/bus", "TestJudge"},
		{"forwarder: a file not a message yet holds back the ones after it", "pkg/fleetbus/forward.go",
			"\tcase bus.Later:\n\t\treturn true, nil\n", "\tcase bus.Later:\n\t\treturn false, nil\n",
			"./pkg/fleetbus", "TestForwardWaitsForAFileWrittenInPlace"},
		{"failed/: a later failure never replaces a record", "pkg/bus/failedrecord.go",
			"\t\tname := FailedName(rec.Name, n)\n", "\t\tname := FailedName(rec.Name, 1)\n\t\t_ = b.failed.Remove(name)\n",
			"./pkg/relay", "TestRefusedAgainKeepsTheFirstRecord"},
		{"failed/: the same failure again is the record already there", "pkg/bus/failedrecord.go",
			"\t\tif b.recorded(name, rec) {\n", "\t\tif false {\n",
			"./pkg/bus", "TestFailAgainIsTheSameRecord"},
	}...)
}
