package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

const stoppedBotSpec = `apiVersion: reconciler.gjc.dev/v1alpha1
kind: ChatDaemon
metadata:
  name: bot
spec:
  provider: slack
  state: Stopped
  slack:
    botToken: {fromEnv: LOOPAPI_TEST_BOT}
    appToken: {fromEnv: LOOPAPI_TEST_APP}
    workspaceId: T1
    channelId: C1
`

// runningLoop runs a loop over a fake store with a spec whose one name,
// bot, is Stopped (nothing to spawn), until the test ends.
func runningLoop(t *testing.T) *Loop {
	t.Setenv("LOOPAPI_TEST_BOT", "xoxb-1")
	t.Setenv("LOOPAPI_TEST_APP", "xapp-1")
	r := fakeReconciler(t, fakestore.New().Store())
	specPath := filepath.Join(r.opts.AgentDir, "daemons.yaml")
	if err := os.WriteFile(specPath, []byte(stoppedBotSpec), 0o600); err != nil {
		t.Fatal(err)
	}
	l := NewLoop(r, LoopOptions{SpecPath: specPath, LockTimeout: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	if err := l.serving.waitReady(t.Context()); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *Loop) reconcileCount() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reconciles
}

// waitFor waits, bounded, for cond; the loop's goroutines move it.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not before the deadline", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// A command the loop serves on a name runs alone with that name: the
// name's worker, woken meanwhile, waits for it (the pass lock cannot make
// it, this process's workers share one flock), then looks at the name.
func TestLoopOperationExcludesTheNamesWorker(t *testing.T) {
	l := runningLoop(t)
	entered, release := make(chan struct{}), make(chan struct{})
	op := func(r *Reconciler, ctx context.Context, name string, d *spec.Daemon, res *spec.Result) OperateResult {
		if d == nil || d.Config.State != spec.StateStopped {
			t.Errorf("the operation got %v, not the loop's object", d)
		}
		close(entered)
		<-release
		return OperateResult{Name: name, OK: true}
	}
	results := make(chan []OperateResult, 1)
	go func() {
		out, err := l.Operate(t.Context(), ActionRestart, Selection{Names: []string{"bot"}}, time.Second, op)
		if err != nil {
			t.Error(err)
		}
		results <- out
	}()
	<-entered
	before := l.reconcileCount()
	l.q.add("bot")
	waitFor(t, "the worker waiting for the operation", func() bool { return l.serving.names.users("bot") == 2 })
	if n := l.reconcileCount(); n != before {
		t.Fatalf("the worker reconciled during the operation (%d -> %d)", before, n)
	}
	close(release)
	if out := <-results; len(out) != 1 || !out[0].OK {
		t.Fatalf("results %+v", out)
	}
	waitFor(t, "the name looked at after the operation", func() bool { return l.reconcileCount() > before })
}

// The loop's status is judged with its spec; unknown names are usage errors.
func TestLoopView(t *testing.T) {
	l := runningLoop(t)
	st, err := l.View(t.Context(), []string{"bot"})
	if err != nil || !st.SpecValid || len(st.Daemons) != 1 || st.Daemons[0].DesiredState != "Stopped" {
		t.Fatalf("view = %+v, %v", st, err)
	}
	if _, err := l.View(t.Context(), []string{"bot", "nope"}); !IsUsage(err) {
		t.Errorf("view of an unknown name: %v, want a usage error", err)
	}
	if _, err := l.Operate(t.Context(), ActionStop, Selection{Names: []string{"nope"}}, time.Second, (*Reconciler).Start); !IsUsage(err) {
		t.Errorf("operate on an unknown name: %v, want a usage error", err)
	}
}

// A status is judged with one spec result from top to bottom: a saved
// SpecValid=True under a spec that is invalid here says False.
func TestViewSpecValidAgreesWithTheTop(t *testing.T) {
	dir := privateAgentDir(t)
	saved := &Status{Version: 1, SpecValid: true, Daemons: []DaemonStatus{{Name: "bot", Phase: PhaseStopped}}}
	meta.SetStatusCondition(&saved.Daemons[0].Conditions, metav1.Condition{Type: ConditionSpecValid, Status: metav1.ConditionTrue, Reason: "Valid"})
	if err := writeStatus(dir, saved); err != nil {
		t.Fatal(err)
	}
	invalid := &spec.Result{Errors: []spec.Issue{{File: "daemons.yaml", Field: "spec.slack.botToken.fromEnv", Detail: "environment variable is not set"}}}
	st, err := View(fakestore.New().Store(), FileHolds(dir), dir, invalid, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.SpecValid || len(st.Daemons) != 1 || meta.IsStatusConditionTrue(st.Daemons[0].Conditions, ConditionSpecValid) {
		t.Errorf("top specValid %v, daemon SpecValid %v", st.SpecValid, meta.FindStatusCondition(st.Daemons[0].Conditions, ConditionSpecValid))
	}
}

func TestNameLocks(t *testing.T) {
	var n nameLocks
	unlock, err := n.lock(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	// Another name is not held up.
	unlockB, err := n.lock(t.Context(), "b")
	if err != nil {
		t.Fatal(err)
	}
	unlockB()
	// The same name waits, and gives up with its context.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := n.lock(ctx, "a"); err == nil {
		t.Fatal("a held name was locked again")
	}
	got := make(chan struct{})
	go func() {
		u, err := n.lock(t.Context(), "a")
		if err == nil {
			u()
		}
		close(got)
	}()
	waitFor(t, "the second locker waiting", func() bool { return n.users("a") == 2 })
	unlock()
	<-got
	if n.users("a") != 0 || len(n.m) != 0 {
		t.Errorf("entries left: %v", n.m)
	}
}
