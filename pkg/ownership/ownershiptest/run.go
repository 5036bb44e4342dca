package ownershiptest

import "testing"

// testCase is one row of the matrix.
type testCase struct {
	name string
	// safety: the case checks what a store must never do (signal a
	// process not proved the owner decided on, report gone an owner not
	// proved gone, let a second owner or pass start), so it must hold
	// under faults that leave proof intact.
	safety bool
	run    func(t *testing.T, w World)
}

// cases is the ownership matrix, the reference's, kept here once.
var cases = []testCase{
	// What Observe sees (Classify judges its facts).
	{"ObserveAbsent", false, observeAbsent},
	{"WatchSeesAnOwnerArrive", false, watchSeesAnOwnerArrive},
	{"WatchSeesARelease", false, watchSeesARelease},
	{"ObserveHealthyOwner", false, observeHealthyOwner},
	{"ObserveReleasedOwnerStillRunning", true, observeReleasedRunning},
	{"ObserveReleasedOwnerExited", false, observeReleasedExited},
	{"ObserveDeadOwner", false, observeDeadOwner},
	{"ObserveReusedPID", true, observeReusedPID},
	{"ObserveUnrelatedProcess", true, observeUnrelatedProcess},
	{"ObserveCopiedRecord", true, observeCopiedRecord},
	{"ObserveMalformedTouchesNothing", true, observeMalformedTouchesNothing},
	{"ObserveUnknownLiveness", true, observeUnknownLiveness},
	{"ObserveVanishedRecord", false, observeVanishedRecord},

	// Stop: the ladder ends the owner decided on, and nothing else.
	{"StopEndsDecidedOwner", false, stopEndsDecidedOwner},
	{"StopOfReleasedOwnerStillEndsIt", false, stopReleasedOwner},
	{"StopOfDeadOwnerIsGone", false, stopDeadOwner},
	{"StopStubbornWithoutEscalateDidNotExit", false, stopStubbornWithoutEscalate},
	{"StopStubbornWithEscalateEndsIt", false, stopStubbornWithEscalate},
	{"StopOfRewrittenRecordSendsNothing", true, stopRewrittenRecord},
	{"StopAfterHandoverSparesSuccessor", true, stopAfterHandover},
	{"StopOfVanishedRecordSendsNothing", true, stopVanishedRecord},
	{"StopOfUnrelatedProcessNeverSignals", true, stopUnrelatedProcess},
	{"StopOfReusedPIDNeverSignals", true, stopReusedPID},
	{"StopOfCopiedRecordNeverSignals", true, stopCopiedRecord},
	{"StopOfUnprovableOwnerSendsNothing", true, stopUnprovableOwner},
	{"StopOfMalformedRecordSendsNothing", true, stopMalformedRecord},
	{"StopOfNewerOwnerSendsNothing", true, stopNewerOwner},
	{"StopOfForeignOwnerSendsNothing", true, stopForeignOwner},
	{"StopCutShortNeverReportsGone", true, stopCutShort},
	{"StopReportsEachStep", false, stopReportsEachStep},
	{"StopRefusedBySendingSendsNothing", true, stopRefusedBySending},

	// SpawnBlocked and Prepare: nothing starts beside a live holder.
	{"SpawnFreeName", false, spawnFreeName},
	{"SpawnBlockedByLiveOwner", true, spawnBlockedByLiveOwner},
	{"SpawnBlockedByHolderWithoutRecord", true, spawnBlockedByHolderWithoutRecord},
	{"SpawnBlockedByMalformedLock", true, spawnBlockedByMalformedLock},

	// Reference: a proof of the process, record or no record.
	{"ReferenceOfDeadOwnerFails", false, referenceOfDeadOwner},
	{"ReferenceOfReusedPIDFails", true, referenceOfReusedPID},
	{"ReferenceOutlivesRecord", true, referenceOutlivesRecord},
	{"ReleaseReapedSparesOtherOwners", true, releaseReapedSparesOthers},

	// The claim's capabilities, and the store's elections.
	{"ClaimReportsControlRequests", false, claimReportsControlRequests},
	{"ClaimCloseEndsIt", false, claimCloseEndsIt},
	{"ClaimCloseWithoutReleaseEndsIt", false, claimCloseWithoutRelease},
	{"LeaderOfAPreparedName", false, leaderOfAPreparedName},

	// Passes and the clock.
	{"LockPassesExcludesSecondHolder", true, lockPassesExcludes},
	{"BootAndNowAreSane", false, bootAndNow},
}

// Run runs every case against h, each a subtest with a world of its own.
func Run(t *testing.T, h Harness) {
	t.Helper()
	run(t, h, func(testCase) bool { return true })
}

// RunSafety runs only the safety cases: what a store must never do. A
// fault-injecting backend runs them with faults on that leave proof intact
// (signals that fail, processes that will not die), under which they must
// still pass; the other cases need a store that can end its owners.
func RunSafety(t *testing.T, h Harness) {
	t.Helper()
	run(t, h, func(c testCase) bool { return c.safety })
}

func run(t *testing.T, h Harness, want func(testCase) bool) {
	t.Helper()
	if h.New == nil {
		t.Fatal("ownershiptest: Harness.New is nil")
	}
	for _, c := range cases {
		if !want(c) {
			continue
		}
		t.Run(c.name, func(t *testing.T) { c.run(t, h.New(t)) })
	}
}
