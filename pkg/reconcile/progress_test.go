package reconcile

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/spec"
)

// progressLog records what a reconciler said it waits for.
type progressLog struct {
	mu    sync.Mutex
	steps []Progress
}

func (l *progressLog) add(p Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.steps = append(l.steps, p)
}

// A forced stop of an owner that ignores SIGTERM says, step by step, what
// it waits for: the exit after SIGTERM, then after SIGKILL, each with its
// process and deadline, then that the wait is over.
func TestStopReportsWhatItWaitsFor(t *testing.T) {
	agentDir := privateAgentDir(t)
	p := ownership.PathsFor(agentDir, "bot")
	if err := fsstore.EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	owner := startStandInAs(t, p, "owner-1", "stubborn")
	if err := os.WriteFile(p.State, owner.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	var log progressLog
	r, err := New(Options{AgentDir: agentDir, Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{}), Progress: log.add})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := r.Stop(context.Background(), "bot", nil, &spec.Result{}, StopOptions{Force: true, Graceful: 200 * time.Millisecond, Kill: 10 * time.Second})
	if !out.OK {
		t.Fatalf("forced stop: %s", out.Message)
	}
	var waits []Wait
	for _, s := range log.steps {
		waits = append(waits, s.Wait)
		if s.Name != "bot" || (s.Wait != WaitNone && (s.PID != owner.PID || s.Deadline.IsZero())) {
			t.Errorf("step %+v: want name bot, pid %d and a deadline", s, owner.PID)
		}
	}
	if want := []Wait{WaitExitAfterSIGTERM, WaitExitAfterSIGKILL, WaitNone}; !slices.Equal(waits, want) {
		t.Errorf("waits reported %v, want %v", waits, want)
	}
}
