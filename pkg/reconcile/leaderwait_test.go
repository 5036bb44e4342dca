package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

// ledStore is a fleet machine, m1, whose names machine m2 leads: it may
// neither spawn nor stop them.
type ledStore struct{ ownership.Store }

func (ledStore) Machine() string               { return "m1" }
func (ledStore) Leader(string) (string, error) { return "m2", nil }
func (ledStore) SpawnBlocked(name string) error {
	return &ownership.LedElsewhereError{Name: name, Leader: "m2"}
}
func (ledStore) Stop(_ context.Context, name string, _ *ownership.Desired, _ ownership.State, _ ownership.StopOptions) error {
	return &ownership.LedElsewhereError{Name: name, Leader: "m2"}
}

// sharedHolds are holds every machine honours (a fleet's), kept here in a
// holds.json.
type sharedHolds struct{ fileHolds }

func (sharedHolds) Shared() bool { return true }

// A stop of a name another machine leads waits for that machine to stop
// it, but not under the pass lock nor with the name: this machine's loop
// goes on meanwhile. The wait still answers the caller, once the leader
// stopped the owner.
func TestLeaderWaitHoldsNeitherThePassLockNorTheName(t *testing.T) {
	t.Setenv("LOOPAPI_TEST_BOT", "xoxb-1")
	t.Setenv("LOOPAPI_TEST_APP", "xapp-1")
	w := fakestore.New()
	dir := privateAgentDir(t)
	r, err := New(Options{AgentDir: dir, Executable: "/bin/false", Log: logr.Discard(), Store: ledStore{w.Store()}, Holds: sharedHolds{fileHolds{agentDir: dir}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	d := slackDaemon(time.Second)
	owner, err := w.StartOwner("bot", desiredOf(d), fakestore.OwnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(dir, "daemons.yaml")
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

	stop := func(r *Reconciler, ctx context.Context, name string, d *spec.Daemon, res *spec.Result) OperateResult {
		return r.Stop(ctx, name, d, res, StopOptions{Graceful: time.Second, Kill: time.Second})
	}
	results := make(chan []OperateResult, 1)
	go func() {
		out, err := l.Operate(t.Context(), ActionStop, Selection{Names: []string{"bot"}}, time.Second, stop)
		if err != nil {
			t.Error(err)
		}
		results <- out
	}()
	waitFor(t, "the stop's hold", func() bool { h, _ := r.holds.Hold("bot"); return h != nil })
	// The stop waits now for m2, for seconds: the pass lock and the name
	// are free meanwhile.
	lctx, lcancel := context.WithTimeout(t.Context(), 3*time.Second)
	release, err := w.Store().LockPasses(lctx)
	lcancel()
	if err != nil {
		t.Fatalf("the pass lock, while the stop waits for the machine that leads bot: %v", err)
	}
	release()
	unlock, err := l.serving.names.lock(t.Context(), "bot")
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	select {
	case out := <-results:
		t.Fatalf("the stop answered before m2 stopped bot: %+v", out)
	default:
	}
	owner.Release() // m2's loop stops it
	owner.Kill()
	out := <-results
	if len(out) != 1 || !out[0].OK || !strings.Contains(out[0].Message, "machine m2, which leads bot, stopped it") {
		t.Fatalf("results %+v, want bot stopped by m2", out)
	}
	if a := out[0].After; a == nil || a.Phase != PhaseHeld {
		t.Errorf("after the stop: %+v, want bot held", a)
	}
}

// leasedStore is ledStore on leases of ttl, as a fleet's etcd.
type leasedStore struct {
	ledStore
	ttl time.Duration
}

func (s leasedStore) LeaseTTL() time.Duration { return s.ttl }

// The wait for the leading machine's stop lasts as long as that stop can:
// its graceful timeout, then the owner's revoked lease standing one TTL
// (its kill timeout, when longer or with no leases), and the slack for
// its loop to see the hold. A shorter wait answers "not stopped" about a
// stop that is still going as it should.
func TestLeaderStopLimitCoversAnEscalatedStop(t *testing.T) {
	d := slackDaemon(5 * time.Second) // the leader's graceful timeout; kill 100 ms
	for _, tc := range []struct {
		name string
		o    StopOptions
		d    *spec.Daemon
		ttl  time.Duration
		want time.Duration
	}{
		{"the spec's graceful timeout, then a lease", StopOptions{Graceful: time.Second, Kill: time.Second}, d, 30 * time.Second, 5*time.Second + 30*time.Second + leaderSlack},
		{"the command's, when longer", StopOptions{Graceful: 20 * time.Second, Kill: time.Second}, d, 10 * time.Second, 20*time.Second + 10*time.Second + leaderSlack},
		{"a kill timeout longer than the lease", StopOptions{Graceful: time.Second, Kill: 40 * time.Second}, d, 10 * time.Second, 5*time.Second + 40*time.Second + leaderSlack},
		{"no leases: the timeouts", StopOptions{Graceful: time.Second, Kill: 2 * time.Second}, d, 0, 5*time.Second + 2*time.Second + leaderSlack},
		{"a name no spec declares: the command's", StopOptions{Graceful: time.Second, Kill: time.Second}, nil, 10 * time.Second, time.Second + 10*time.Second + leaderSlack},
	} {
		if got := leaderStopLimit(tc.o, tc.d, tc.ttl); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}

	// And the wait is that long on a leased store: its answer says so.
	w := fakestore.New()
	r := fakeReconciler(t, leasedStore{ledStore{w.Store()}, 30 * time.Second})
	if _, err := w.StartOwner("bot", desiredOf(d), fakestore.OwnerOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // its answer at once, with the limit it had
	ok, msg := r.awaitLeaderStop(ctx, "bot", "m2", d, StopOptions{Graceful: time.Second, Kill: time.Second})
	if ok || !strings.Contains(msg, "within 45s") {
		t.Fatalf("awaitLeaderStop = %t, %q; want not stopped within 45s (5 s graceful, a 30 s lease, 10 s slack)", ok, msg)
	}
}
