package chat

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/spec"
)

// calls is the order in which a daemon's phases touched its claim and its
// components.
type calls struct {
	mu   sync.Mutex
	list []string
}

func (c *calls) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, s)
}

func (c *calls) get() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.list)
}

// fakeClaim records heartbeats and the release; renew decides what the
// n-th heartbeat (from 0) returns.
type fakeClaim struct {
	calls      *calls
	renew      func(n int) error
	n          int
	terminated *ownership.Terminated
	// lost, when set, is Lost; fenceErr is what Fence says once it is closed.
	lost     chan struct{}
	fenceErr error
}

func (f *fakeClaim) Renew(ownership.Heartbeat) error {
	f.calls.add("heartbeat")
	n := f.n
	f.n++
	if f.renew == nil {
		return nil
	}
	return f.renew(n)
}

func (f *fakeClaim) Release(t *ownership.Terminated) error {
	f.calls.add("release")
	f.terminated = t
	return nil
}

func (f *fakeClaim) StopRequested() (bool, error) { return false, nil }

func (f *fakeClaim) Fence() error {
	select {
	case <-f.lost:
		return f.fenceErr
	default:
		return nil
	}
}

func (f *fakeClaim) Lost() <-chan struct{} { return f.lost }

func (f *fakeClaim) State() ownership.State { return ownership.State{PID: 1, OwnerID: "owner-test"} }

func (f *fakeClaim) ControlChanged() <-chan struct{} { return nil }

func (f *fakeClaim) Close() error { return nil }

// fakeComponent records its Start and Stop; started runs inside Start, so
// a test can act once it (the last component) runs.
type fakeComponent struct {
	name     string
	calls    *calls
	startErr func() error // nil: it starts
	started  func()
	done     chan struct{}
	once     sync.Once
	err      error
}

func newFakeComponent(name string, c *calls) *fakeComponent {
	return &fakeComponent{name: name, calls: c, done: make(chan struct{})}
}

func (f *fakeComponent) Name() string { return f.name }

func (f *fakeComponent) Start(context.Context) error {
	f.calls.add("start " + f.name)
	if f.startErr != nil {
		return f.startErr()
	}
	if f.started != nil {
		f.started()
	}
	return nil
}

// end ends its work on its own, with err.
func (f *fakeComponent) end(err error) {
	f.once.Do(func() {
		f.err = err
		close(f.done)
	})
}

func (f *fakeComponent) Done() <-chan struct{} { return f.done }

func (f *fakeComponent) Err() error {
	select {
	case <-f.done:
		return f.err
	default:
		return nil
	}
}

func (f *fakeComponent) Stop(context.Context) error {
	f.calls.add("stop " + f.name)
	f.end(nil)
	return f.Err()
}

type fakeHealth struct{ changed chan struct{} }

func (f *fakeHealth) Health() Health                 { return Health{Healthy: true} }
func (f *fakeHealth) HealthChanged() <-chan struct{} { return f.changed }

// phaseWorld is one daemon past acquire, with a transport and a relay.
type phaseWorld struct {
	d         *daemon
	claim     *fakeClaim
	health    *fakeHealth
	transport *fakeComponent
	relay     *fakeComponent
	cancel    context.CancelFunc
}

func newPhaseWorld(t *testing.T) (*phaseWorld, context.Context, *calls) {
	t.Helper()
	c := &calls{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	paths := ownership.PathsFor(t.TempDir(), "bot")
	if err := fsstore.EnsureDir(paths); err != nil {
		t.Fatal(err)
	}
	w := &phaseWorld{
		claim:     &fakeClaim{calls: c, lost: make(chan struct{})},
		health:    &fakeHealth{changed: make(chan struct{}, 1)},
		transport: newFakeComponent("transport", c),
		relay:     newFakeComponent("relay", c),
		cancel:    cancel,
	}
	// No heartbeat tick within a test: heartbeats come from the first one
	// and from health changes only, so the calls are exactly predictable.
	w.d = &daemon{claim: w.claim, paths: paths, cfg: &spec.Config{Name: "bot", Generation: 1},
		log: testr.New(t), heartbeat: time.Hour, health: w.health}
	return w, ctx, c
}

func (w *phaseWorld) healthChanged() { w.health.changed <- struct{}{} }

var errLost = &ownership.OwnershipLostError{What: ownership.StateFile, Field: "ownerId", Want: "owner-test", Got: "usurper"}

func TestDaemonPhasesRunInOrder(t *testing.T) {
	all := []string{"heartbeat", "start transport", "start relay"}
	shutdown := []string{"stop relay", "stop transport"}
	tests := []struct {
		name string
		// renew is the n-th heartbeat's answer; once is what happens once
		// the relay (the last component) started.
		renew          func(w *phaseWorld, n int) error
		once           func(w *phaseWorld)
		relayStartErr  func(w *phaseWorld) error
		wantCode       int
		wantCalls      []string
		wantTerminated string // "" when released with none
	}{{
		name:      "a signal stops the relay, then the transport, then releases",
		once:      func(w *phaseWorld) { w.cancel() },
		wantCode:  daemonproto.ExitStopped,
		wantCalls: slices.Concat(all, shutdown, []string{"release"}),
	}, {
		name:      "the first heartbeat fails: nothing starts, nothing is released",
		renew:     func(_ *phaseWorld, n int) error { return errLost },
		wantCode:  daemonproto.ExitLost,
		wantCalls: []string{"heartbeat"},
	}, {
		name: "lost ownership stops the components at once and releases nothing",
		renew: func(_ *phaseWorld, n int) error {
			if n == 1 {
				return errLost
			}
			return nil
		},
		once:      func(w *phaseWorld) { w.healthChanged() },
		wantCode:  daemonproto.ExitLost,
		wantCalls: slices.Concat(all, []string{"heartbeat"}, shutdown),
	}, {
		name: "a loss a component's fence found stops the components at once and releases nothing",
		once: func(w *phaseWorld) {
			w.claim.fenceErr = errLost
			close(w.claim.lost)
		},
		wantCode:  daemonproto.ExitLost,
		wantCalls: slices.Concat(all, shutdown),
	}, {
		name: "a heartbeat that is not written is not a loss",
		renew: func(w *phaseWorld, n int) error {
			if n == 1 {
				w.cancel()
				return errors.New("no space left on device")
			}
			return nil
		},
		once:      func(w *phaseWorld) { w.healthChanged() },
		wantCode:  daemonproto.ExitStopped,
		wantCalls: slices.Concat(all, []string{"heartbeat"}, shutdown, []string{"release"}),
	}, {
		name: "a transport refused for good stops the relay first and records why",
		once: func(w *phaseWorld) {
			w.transport.end(&TerminalError{Reason: daemonproto.ReasonInvalidCredentials, Message: "401"})
		},
		wantCode:       daemonproto.ExitTerminal,
		wantCalls:      slices.Concat(all, shutdown, []string{"release"}),
		wantTerminated: daemonproto.ReasonInvalidCredentials,
	}, {
		name:           "a transport that returns unexpectedly is recorded as retryable",
		once:           func(w *phaseWorld) { w.transport.end(errors.New("gateway went away")) },
		wantCode:       daemonproto.ExitFailed,
		wantCalls:      slices.Concat(all, shutdown, []string{"release"}),
		wantTerminated: daemonproto.ReasonTransportStopped,
	}, {
		name:          "a component that cannot start: those started are stopped, then released as a stop to retry",
		relayStartErr: func(*phaseWorld) error { return errors.New("bus dir unreadable") },
		wantCode:      daemonproto.ExitFailed,
		wantCalls:     []string{"heartbeat", "start transport", "start relay", "stop transport", "release"},
		// Not a clean release: that would read as an operator's stop, and
		// skip the crash loop's back-off.
		wantTerminated: daemonproto.ReasonTransportStopped,
	}, {
		name: "a signal while a component starts is a stop",
		relayStartErr: func(w *phaseWorld) error {
			w.cancel()
			return context.Canceled
		},
		wantCode:  daemonproto.ExitStopped,
		wantCalls: []string{"heartbeat", "start transport", "start relay", "stop transport", "release"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, ctx, c := newPhaseWorld(t)
			if tc.renew != nil {
				w.claim.renew = func(n int) error { return tc.renew(w, n) }
			}
			if tc.relayStartErr != nil {
				w.relay.startErr = func() error { return tc.relayStartErr(w) }
			}
			if tc.once != nil {
				w.relay.started = func() { tc.once(w) }
			}
			type result struct {
				code int
				err  error
			}
			ran := make(chan result, 1)
			go func() {
				code, err := w.d.run(ctx, []Component{w.transport, w.relay})
				ran <- result{code, err}
			}()
			var code int
			var err error
			select {
			case r := <-ran:
				code, err = r.code, r.err
			case <-time.After(testTimeout):
				t.Fatalf("the daemon did not end; calls so far %q", c.get())
			}
			if code != tc.wantCode {
				t.Errorf("exit %d (%v), want %d", code, err, tc.wantCode)
			}
			if (err == nil) != (code == daemonproto.ExitStopped) {
				t.Errorf("exit %d with error %v: only a stop has none", code, err)
			}
			if got := c.get(); !slices.Equal(got, tc.wantCalls) {
				t.Errorf("calls\n got %q\nwant %q", got, tc.wantCalls)
			}
			var gotTerminated string
			if w.claim.terminated != nil {
				gotTerminated = w.claim.terminated.Reason
			}
			if gotTerminated != tc.wantTerminated {
				t.Errorf("released with terminated reason %q, want %q", gotTerminated, tc.wantTerminated)
			}
		})
	}
}
