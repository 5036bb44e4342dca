package chat

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

// fakeRelay is a relay health source the test sets.
type fakeRelay struct {
	mu    sync.Mutex
	state *ownership.RelayState
	ch    chan struct{}
}

func newFakeRelay() *fakeRelay { return &fakeRelay{ch: make(chan struct{}, 1)} }

func (f *fakeRelay) RelayState() *ownership.RelayState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state.Clone()
}

func (f *fakeRelay) RelayChanged() <-chan struct{} { return f.ch }

func (f *fakeRelay) Settled() bool { return true }

// component makes it a daemon's relay component that does nothing else.
func (f *fakeRelay) component(ownership.Claim, SharedBus) (RelayComponent, error) {
	return &fakeRelayComponent{fakeRelay: f, done: make(chan struct{})}, nil
}

type fakeRelayComponent struct {
	*fakeRelay
	done chan struct{}
	once sync.Once
}

func (c *fakeRelayComponent) Name() string                { return "relay" }
func (c *fakeRelayComponent) Start(context.Context) error { return nil }
func (c *fakeRelayComponent) Done() <-chan struct{}       { return c.done }
func (c *fakeRelayComponent) Err() error                  { return nil }
func (c *fakeRelayComponent) Stop(context.Context) error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (f *fakeRelay) set(s *ownership.RelayState) {
	f.mu.Lock()
	f.state = s
	f.mu.Unlock()
	select {
	case f.ch <- struct{}{}:
	default:
	}
}

// The relay's health reaches the record through the heartbeat, and each
// change of it is published without waiting for the next beat (an hour
// here): a backlog growing, a block and its end all show.
func TestRunDaemonPublishesTheRelaysHealth(t *testing.T) {
	dir := t.TempDir()
	cfg := daemonConfig()
	paths := ownership.PathsFor(dir, cfg.Name)
	rl := newFakeRelay()
	rl.state = &ownership.RelayState{Pending: 1}
	tr := &fakeTransport{running: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code, _ := RunDaemon(ctx, DaemonOptions{AgentDir: dir, Owners: releasedAtCleanup(t, fsstore.New(dir, fsstore.Options{})),
			OwnerID: "owner-1", Config: cfg, Log: testr.New(t), Heartbeat: time.Hour, NewRelay: rl.component}, tr)
		done <- code
	}()
	waitRunning(t, tr)
	waitRecord(t, paths, func(s *ownership.State) bool { return s.Relay != nil && s.Relay.Pending == 1 })
	waitRecord(t, paths, func(s *ownership.State) bool { return s.TransportHealthy })

	blocked := &ownership.RelayBlock{Reason: "ChannelUnavailable", Message: "unknown channel c"}
	rl.set(&ownership.RelayState{Pending: 4, Failed: 1, Blocked: blocked, Posted: 2, PostSeconds: 0.5})
	waitRecord(t, paths, func(s *ownership.State) bool {
		r := s.Relay
		return r != nil && r.Pending == 4 && r.Failed == 1 && r.Blocked != nil && *r.Blocked == *blocked && r.Posted == 2
	})
	// Changes in quick succession are all published, the last one
	// surely: at most one write a second, never a change left unwritten.
	for i := range 5 {
		rl.set(&ownership.RelayState{Pending: int64(10 + i), Posted: 3})
	}
	waitRecord(t, paths, func(s *ownership.State) bool {
		return s.Relay != nil && s.Relay.Pending == 14 && s.Relay.Blocked == nil
	})
	cancel()
	select {
	case code := <-done:
		if code != daemonproto.ExitStopped {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(testTimeout):
		t.Fatal("the daemon did not stop")
	}
}

// A daemon without a relay publishes none: status shows "-", not zeros.
func TestRunDaemonWithoutARelayPublishesNone(t *testing.T) {
	dir := t.TempDir()
	cfg := daemonConfig()
	paths := ownership.PathsFor(dir, cfg.Name)
	tr := &fakeTransport{running: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = RunDaemon(ctx, DaemonOptions{AgentDir: dir, Owners: releasedAtCleanup(t, fsstore.New(dir, fsstore.Options{})),
			OwnerID: "owner-1", Config: cfg, Log: testr.New(t), Heartbeat: time.Hour}, tr)
	}()
	waitRunning(t, tr)
	if s := waitRecord(t, paths, func(s *ownership.State) bool { return s.TransportHealthy }); s.Relay != nil {
		t.Fatalf("a daemon without a relay published %+v", s.Relay)
	}
	cancel()
	<-done
}

// waitRunning waits for the transport to run: the daemon dir exists then.
func waitRunning(t *testing.T, tr *fakeTransport) {
	t.Helper()
	select {
	case <-tr.running:
	case <-time.After(testTimeout):
		t.Fatal("the transport never ran")
	}
}

func TestRelayWait(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		what string
		now  time.Time
		want time.Duration
	}{
		{"right after a beat", t0, time.Second},
		{"inside the gap", t0.Add(300 * time.Millisecond), 700 * time.Millisecond},
		{"at the gap", t0.Add(time.Second), 0},
		{"long after", t0.Add(time.Hour), 0},
		{"the clock went back", t0.Add(-time.Hour), 0},
	} {
		if got := relayWait(t0, tc.now, time.Second); got != tc.want {
			t.Errorf("%s: relayWait = %v, want %v", tc.what, got, tc.want)
		}
	}
}

// Inside the gap a change arms one deferred write and no second one; once
// it is written, the next change outside the gap writes at once.
func TestRelayBeatsArmOnce(t *testing.T) {
	r := &relayBeats{src: newFakeRelay()}
	defer r.stop()
	last := time.Now()
	if r.onChange(last, last.Add(10*time.Millisecond)) || r.fired() == nil {
		t.Fatal("a change inside the gap must arm a deferred write, not write now")
	}
	armed := r.timer
	if r.onChange(last, last.Add(20*time.Millisecond)) || r.timer != armed {
		t.Fatal("a second change inside the gap armed another write")
	}
	<-r.fired()
	r.done()
	if !r.onChange(last, last.Add(2*time.Second)) || r.fired() != nil {
		t.Fatal("a change after the gap must write at once")
	}
	if (&relayBeats{}).changed() != nil {
		t.Fatal("no relay, yet a change channel")
	}
}

// settledRelay is a relay health source that says whether it settled.
type settledRelay struct {
	*fakeRelay
	settled bool
}

func (s settledRelay) Settled() bool { return s.settled }

// A daemon is healthy only once its relay's channel check answered: a
// wrong channel must show as ChannelUnavailable, never first as Ready.
func TestHeartbeatWaitsForTheRelayToSettle(t *testing.T) {
	tests := []struct {
		name               string
		transport, settled bool
		relay, wantHealthy bool
	}{
		{"no relay", true, false, false, true},
		{"relay not settled", true, false, true, false},
		{"relay settled", true, true, true, true},
		{"transport down", false, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &daemon{}
			if tt.relay {
				d.relay = settledRelay{fakeRelay: newFakeRelay(), settled: tt.settled}
			}
			hb := d.heartbeatOf(Health{Healthy: tt.transport})
			if hb.TransportHealthy != tt.wantHealthy {
				t.Fatalf("healthy %v, want %v", hb.TransportHealthy, tt.wantHealthy)
			}
		})
	}
}
