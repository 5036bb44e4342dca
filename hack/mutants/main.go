// Command mutants removes, one at a time, each safety rule of the
// ownership and reconcile code, runs the tests that guard it, and reports
// which removals the tests caught. A rule whose removal survives has no
// test that can fail: that is a bug in the tests.
//
// Run it from the repository root: go run ./hack/mutants [-run REGEXP]
// The tree is restored after each mutant, also on Ctrl-C.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// mutant is one rule removed: old (which must occur exactly once in file)
// replaced by new, caught if `go test -run tests pkg` fails.
type mutant struct {
	name, file, old, new, pkg, tests string
}

var mutants = []mutant{
	{"argv proof in probeOwner", "pkg/ownership/fsstore/probe.go",
		"\tif !f.Equal {\n\t\treturn f\n\t}\n\targv, err := probe.Argv(pid, recorded)",
		"\treturn f\n\targv, err := probe.Argv(pid, recorded)",
		"./pkg/ownership/fsstore", "ProvesTheProcess|CopiedDaemonDir|RecordNamingAny"},
	{"argv proof in OpenOwner (the signal path)", "pkg/ownership/fsstore/signal.go",
		"f := probeOwner(probe, cur.PID, cur.Incarnation, ownership.ClaimOf(p, cur.OwnerID))",
		"f := probePID(probe, cur.PID, cur.Incarnation)",
		"./pkg/ownership/fsstore", "CopiedDaemonDir|RecordNamingAny"},
	{"argv proof in the successor check", "pkg/ownership/fsstore/reclaim.go",
		"f := probeOwner(probe, s.PID, s.Incarnation, ownership.ClaimOf(p, s.OwnerID))",
		"f := probePID(probe, s.PID, s.Incarnation)",
		"./pkg/ownership/fsstore", "CopiedDaemonDir|RecordNamingAny"},
	{"reference daemons recognised", "pkg/ownership/fsstore/verifyargv.go",
		"if argv[i] != daemonproto.Command || !isRef {",
		"if _ = isRef; true {",
		"./pkg/ownership/fsstore", "ReferenceDaemon"},
	{"an unknown agent dir is unproven, not another", "pkg/ownership/fsstore/verifyargv.go",
		"return unsure(\"its agent dir cannot be compared with this one (moved, removed or relative)\")",
		"return other(\"x\")",
		"./pkg/ownership/fsstore", "ProvesTheProcess"},
	{"liveness unknown is never dead", "pkg/ownership/fsstore/probe.go",
		"\t\t// Exists, or liveness unknown: never treated as dead.\n\t\treturn ownership.ProcessFacts{Alive: true, Err: err}",
		"\t\treturn ownership.ProcessFacts{}",
		"./pkg/ownership/fsstore", "Classify|SignalOwner"},
	{"name lock in Acquire", "pkg/ownership/fsstore/acquire.go",
		"\tif e.filesOnly {\n\t\treturn acquireLocked",
		"\tif true {\n\t\treturn acquireLocked",
		"./pkg/ownership/fsstore", "NameLock"},
	{"name lock by the dir's identity", "pkg/ownership/internal/agentdir/keys.go",
		"return append(keys, hash(\"i\", id)), nil",
		"_ = id\n\treturn keys, nil",
		"./pkg/ownership/fsstore", "NameLockFollowsTheAgentDir"},
	{"name lock by the dir's path as written", "pkg/ownership/internal/agentdir/keys.go",
		"keys := []string{hash(\"p\", abs)}",
		"keys := []string{}",
		"./pkg/ownership/fsstore", "NameLockFollowsTheAgentDir"},
	{"name lock by the dir's real path", "pkg/ownership/internal/agentdir/keys.go",
		"keys = append(keys, hash(\"r\", real))",
		"_ = real",
		"./pkg/ownership/fsstore", "NameLockFollowsTheAgentDir"},
	{"heartbeat from the future is not fresh", "pkg/ownership/classify.go",
		"\t\ts.HeartbeatAt-now.UnixMilli() > MaxClockSkew.Milliseconds():",
		"\t\tfalse:",
		"./pkg/ownership/fsstore", "Classify$|HeartbeatFromTheFuture"},
	{"kernel pass lock", "pkg/ownership/internal/agentdir/passlock.go",
		"held, err := platform.TakeNameLocks(keys...)",
		"held, err := platform.TakeNameLocks(keys[0] + fmt.Sprint(time.Now().UnixNano()))",
		"./pkg/ownership/internal/agentdir", "PassLock"},
	{"pass lock inode re-check", "pkg/ownership/internal/agentdir/passlock.go",
		"\t\t\tif named {\n",
		"\t\t\tif named || true {\n",
		"./pkg/ownership/internal/agentdir", "PassLock"},
	{"crash loop reset after ten healthy minutes", "pkg/reconcile/crashloop.go",
		"\tif now.Sub(c.healthySince) >= crashResetAfter {",
		"\tif false {",
		"./pkg/reconcile", "CrashLoop"},
	{"attach to a successor after a stop", "pkg/reconcile/decidestart.go",
		"\treturn cls.Signalable && (cls.Class == ownership.ClassCompatible || cls.Class == ownership.ClassNewer)\n",
		"\treturn false\n",
		"./pkg/reconcile", "ReplaceAttachesToSuccessor"},
	{"a failed stop clears its request", "pkg/ownership/fsstore/stop.go",
		"\t\tif cerr := ClearControl(paths, req.RequestID); cerr != nil",
		"\t\tif cerr := error(nil); cerr != nil",
		"./pkg/reconcile", "FailedStopClears"},
	{"a stop that sent nothing keeps its request", "pkg/ownership/internal/ladder/ladder.go",
		"\t\tif err != nil && !done.sent {",
		"\t\tif false {",
		"./pkg/reconcile", "StopThatSentNothing"},
	{"a stop opens the owner through every check", "pkg/ownership/fsstore/stop.go",
		"\tproc, err := OpenOwner(paths, want, decided, s.probe)",
		"\tproc, err := platform.OpenProcess(decided.PID, decided.Incarnation)",
		"./pkg/reconcile", "StopOfChangedOwner"},
	{"tracked owners saved in their own file", "pkg/reconcile/trackedfile.go",
		"\tif r.trackedBroken || (r.trackedSaved && maps.Equal(r.tracked, r.savedTracked)) {",
		"\tif true {",
		"./pkg/reconcile", "TrackedOwnersSurviveDeletedStatus"},
	{"decide: an unproven owner is never acted on", "pkg/reconcile/decide.go",
		"\tcase cls.Class == ownership.ClassMalformed, cls.Class == ownership.ClassForeign, cls.AmbiguouslyLive:\n",
		"\tcase cls.Class == ownership.ClassMalformed, cls.Class == ownership.ClassForeign:\n",
		"./pkg/reconcile", "Decide"},
	{"decide: a hung newer owner is never signalled", "pkg/reconcile/decidestart.go",
		"\t\tif l.cls.Class == ownership.ClassNewer {\n\t\t\treturn refusal(",
		"\t\tif false {\n\t\t\treturn refusal(",
		"./pkg/reconcile", "Decide"},
	{"decide: no second spawn beside our own starting one", "pkg/reconcile/decidestart.go",
		"\t\tif l.child != \"\" && (l.rec.State == nil || l.rec.State.OwnerID != l.child) {",
		"\t\tif false {",
		"./pkg/reconcile", "Decide"},
	{"startGate: a final refusal is not retried", "pkg/reconcile/decidestart.go",
		"\tif s := l.rec.State; terminal(s) && s.Identity == l.identity",
		"\tif s := l.rec.State; false && s.Identity == l.identity",
		"./pkg/reconcile", "StartGate"},
	{"pkg/reconcile reaches no platform primitive", "pkg/reconcile/stop.go",
		"import (\n\t\"context\"\n",
		"import (\n\t_ \"gjc.dev/reconciler/pkg/platform\"\n\t\"context\"\n",
		"./pkg/reconcile", "ImportsNoPlatform"},
	{"a daemon proves its record again when it changes", "pkg/chat/supervise.go",
		"\t\t\tcase filepath.Base(d.paths.State), filepath.Base(d.paths.Lock):\n",
		"\t\t\tcase \"never\":\n",
		"./pkg/chat", "StopsTheMomentItsRecordIsTaken"},
	{"a daemon stops when a fence found the loss", "pkg/chat/supervise.go",
		"\t\tcase <-d.claim.Lost():\n",
		"\t\tcase <-make(chan struct{}):\n",
		"./pkg/chat", "PhasesRunInOrder"},
	{"a fence's loss closes Lost", "pkg/ownership/fsstore/renew.go",
		"\t\tclose(o.lostCh) // once: lost is never unset\n",
		"",
		"./pkg/ownership/fsstore", "FenceFindsLoss"},
	{"a look watches a re-created daemon dir again", "pkg/ownership/fsstore/store.go",
		"\t\tw.Rewatch(p.Dir)\n",
		"",
		"./pkg/ownership/fsstore", "ObserveWatchesARecreatedDirAgain"},
	{"a watch sees a daemon dir that does not exist yet", "pkg/ownership/fsstore/store.go",
		"\tfor _, dir := range levels[:2] {\n",
		"\tfor _, dir := range levels[:0] {\n",
		"./pkg/ownership/fsstore", "Conformance/WatchSeesAnOwnerArrive"},
	{"startGate: no start beside a tracked owner", "pkg/reconcile/decidestart.go",
		"\tcase l.trackedRunning():\n\t\treturn awaitTracked(l)\n\tcase l.expecting",
		"\tcase false:\n\t\treturn awaitTracked(l)\n\tcase l.expecting",
		"./pkg/reconcile", "StartGate"},
	{"a refused proved owner is still watched", "pkg/reconcile/decide.go",
		"\tif l.cls.Signalable {\n\t\tp.watch = l.rec.State",
		"\tif false {\n\t\tp.watch = l.rec.State",
		"./pkg/reconcile", "HungNewerOwnerIsStillTheObservedOwner"},
	{"our own spawn is judged at each look", "pkg/reconcile/attempt.go",
		"\tif c := a.st.child; c != nil && !c.exited() {\n",
		"\tif c := a.st.child; c != nil {\n",
		"./pkg/reconcile", "ChildExitedDuringReleasedWait"},
	{"Acquire's deferred dir fsyncs end before the publish", "pkg/ownership/fsstore/acquire.go",
		"\tdata := st.Marshal()\n\tresume()\n",
		"\tdata := st.Marshal()\n",
		"./pkg/ownership/fsstore", "AcquireEndsWithTheDirDurable"},
	{"a config cut short is refused", "pkg/spec/wire.go",
		"\tif data[len(data)-1] != '\\n' {\n",
		"\tif false {\n",
		"./pkg/spec", "WireRefusesAConfigCutShort"},
	{"the live look refuses what it cannot trust", "pkg/reconcile/view.go",
		"\tcase p.step == stepRefuse || p.step == stepAwaitTracked || p.step == stepStopTimedOut:\n",
		"\tcase false:\n",
		"./pkg/reconcile", "LiveStatus"},
	{"a held name is wanted stopped", "pkg/reconcile/attempt.go",
		"\tl.want = stoppingOf(a.d.Config.State == spec.StateStopped, a.hold)\n",
		"\tl.want = stoppingOf(a.d.Config.State == spec.StateStopped, nil)\n",
		"./pkg/reconcile", "HeldNameStaysStopped"},
	{"unreadable holds touch nothing", "pkg/reconcile/decide.go",
		"\tif l.holdsErr != nil {\n",
		"\tif false {\n",
		"./pkg/reconcile", "UnreadableHolds"},
	{"a stop holds before it stops", "pkg/reconcile/operate.go",
		"\t\tchanged, err := r.setHold(name, &Hold{Force: o.Force})\n\t\tif err != nil {\n",
		"\t\tchanged, err := r.setHold(name, &Hold{Force: o.Force})\n\t\tif err != nil && false {\n",
		"./pkg/reconcile", "UnreadableHolds"},
	{"lock trouble reported before a spawn", "pkg/ownership/fsstore/store.go",
		"\treturn marked(SpawnObstacle(p, s.probe))\n",
		"\treturn nil\n",
		"./cmd/reconciler/systemtest", "LockTroubleIsReportedBeforeSpawning"},
	{"name lock looked up before a spawn", "pkg/ownership/fsstore/store.go",
		"\tcase holder != nil:\n",
		"\tcase holder != nil && false:\n",
		"./cmd/reconciler/systemtest", "RemovedStateNeverRunsTwoOwners"},
	{"a standby is handed only the launch it matches", "pkg/reconcile/standby.go",
		"\tcase !s.key.equal(want):",
		"\tcase !s.key.equal(want) && false:",
		"./pkg/reconcile", "StandbyNotUsedForAnotherLaunch"},
	{"a standby's argv is part of its key", "pkg/reconcile/standby.go",
		"\t\tslices.Equal(k.l.args, o.l.args) &&\n",
		"",
		"./cmd/reconciler/systemtest", "WarmReplacementDiscardedOnGenerationChange"},
	{"a standby's environment is part of its key", "pkg/reconcile/standby.go",
		"\t\tslices.Equal(k.l.env, o.l.env) &&\n",
		"",
		"./cmd/reconciler/systemtest", "WarmReplacementDiscardedOnEnvChange"},
	{"a standby's executable file is part of its key", "pkg/reconcile/standby.go",
		"\t\tsameExecutable(k.exe, o.exe)\n",
		"\t\ttrue\n",
		"./pkg/reconcile", "StandbyNotUsedForAnotherLaunch"},
	{"a standby writing to a replaced daemon.log is not used", "pkg/reconcile/standby.go",
		"\tcase !s.logCurrent(paths):\n\t\tp.dropLocked(s, \"daemon.log was replaced\")\n\tcase s.c.exited():",
		"\tcase s.c.exited():",
		"./pkg/reconcile", "StandbyNotUsedForAnotherLaunch"},
	{"keep replaces a standby that no longer matches", "pkg/reconcile/standby.go",
		"\t\tcase !cur.key.equal(want):",
		"\t\tcase !cur.key.equal(want) && false:",
		"./pkg/reconcile", "StandbyReplacedWhenItNoLongerMatches"},
	{"a spec change drops a standby that no longer matches", "pkg/reconcile/standby.go",
		"\t\tif s := p.byName[name]; s != nil && (err != nil || !s.key.equal(want)) {",
		"\t\tif s := p.byName[name]; s != nil && false && (err != nil || !s.key.equal(want)) {",
		"./pkg/reconcile", "StandbyReplacedWhenItNoLongerMatches"},
	{"a standby only behind a healthy Running owner", "pkg/reconcile/standby.go",
		"\tif d == nil || d.Config.State != spec.StateRunning || out.Owner == nil || out.Status.Phase != PhaseRunning || !out.Status.Converged {",
		"\tif d == nil {",
		"./pkg/reconcile", "StandbyOnlyBehindAHealthyRunningOwner"},
	{"a standby's own exit is no child exit", "pkg/reconcile/standby.go",
		"\tcase promoted:\n\t\tp.r.childExited(s.name, s.c)\n\tcase standing:",
		"\tdefault:\n\t\tp.r.childExited(s.name, s.c)\n\tcase standing:",
		"./pkg/reconcile", "StandbyNotUsedForAnotherLaunch|StandbyExitBacksOff"},
	{"closing the standbys discards them", "pkg/reconcile/standby.go",
		"\t\tp.dropLocked(s, \"the loop is stopping\")",
		"\t\t_ = s",
		"./pkg/reconcile", "StandbysClosed"},
	{"a daemon without config leaves nothing", "cmd/reconciler/daemon.go",
		"\t\t\tif errors.Is(err, spec.ErrNoConfig) {",
		"\t\t\tif errors.Is(err, spec.ErrNoConfig) && false {",
		"./cmd/reconciler/systemtest", "DaemonWithoutConfigLeavesNothing"},
}

func main() {
	only := flag.String("run", "", "only the mutants whose name matches this regexp")
	applies := flag.Bool("applies", false, "only check that each mutant's code is where its row says (once), running no test")
	flag.Parse()
	if *applies {
		os.Exit(checkApplies())
	}
	var filter *regexp.Regexp
	if *only != "" {
		filter = regexp.MustCompile(*only)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var caught, survived, broken int
	for _, m := range mutants {
		if filter != nil && !filter.MatchString(m.name) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		verdict, err := try(ctx, m)
		switch {
		case err != nil:
			broken++
			fmt.Printf("BROKEN    %s: %v\n", m.name, err)
		case verdict:
			caught++
			fmt.Printf("caught    %s\n", m.name)
		default:
			survived++
			fmt.Printf("SURVIVED  %s (%s -run '%s')\n", m.name, m.pkg, m.tests)
		}
	}
	total := caught + survived
	fmt.Printf("\n%d of %d mutants caught", caught, total)
	if total > 0 {
		fmt.Printf(" (%.0f%%)", 100*float64(caught)/float64(total))
	}
	if broken > 0 {
		fmt.Printf("; %d could not be applied (the code moved: update the table)", broken)
	}
	fmt.Println()
	if survived > 0 || broken > 0 {
		os.Exit(1)
	}
}

// try applies m, runs its tests and restores the file; true if they failed.
func try(ctx context.Context, m mutant) (bool, error) {
	orig, err := os.ReadFile(m.file)
	if err != nil {
		return false, err
	}
	if n := bytes.Count(orig, []byte(m.old)); n != 1 {
		return false, fmt.Errorf("%s: the rule's code occurs %d times, want once", m.file, n)
	}
	mutated := bytes.Replace(orig, []byte(m.old), []byte(m.new), 1)
	if err := os.WriteFile(m.file, mutated, 0o644); err != nil {
		return false, err
	}
	defer func() {
		if err := os.WriteFile(m.file, orig, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "RESTORE %s FAILED: %v; run git checkout -- %s\n", m.file, err, m.file)
		}
	}()
	tctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(tctx, "go", "test", "-count=1", "-run", m.tests, m.pkg)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	switch {
	case tctx.Err() != nil:
		return false, fmt.Errorf("the tests did not finish: %w", tctx.Err())
	case err != nil && (strings.Contains(string(out), "[build failed]") || strings.Contains(string(out), "\nvet: ")):
		// Not caught by a test: the mutant does not compile, or vet
		// (which go test runs) refused it.
		return false, fmt.Errorf("the mutant does not build or vet:\n%s", out)
	}
	return err != nil, nil
}

// checkApplies reports every mutant whose rule's code is no longer where
// its row says, exactly once: a row that cannot be applied guards
// nothing, and finding that needs no test run, so hack/test.sh asks it.
func checkApplies() int {
	bad := 0
	for _, m := range mutants {
		orig, err := os.ReadFile(m.file)
		if err == nil {
			if n := bytes.Count(orig, []byte(m.old)); n != 1 {
				err = fmt.Errorf("%s: the rule's code occurs %d times, want once", m.file, n)
			}
		}
		if err != nil {
			bad++
			fmt.Printf("BROKEN    %s: %v\n", m.name, err)
		}
	}
	fmt.Printf("%d mutants, %d could not be applied\n", len(mutants), bad)
	if bad > 0 {
		return 1
	}
	return 0
}
