package chat

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/spec"
)

// testTimeout bounds every wait of the daemon's tests.
const testTimeout = 20 * time.Second

// fakeTransport is healthy as soon as it runs, until ctx is done.
type fakeTransport struct {
	runs    atomic.Int32
	running chan struct{}
	atClose func()
}

func (f *fakeTransport) Run(ctx context.Context, report func(Health)) error {
	f.runs.Add(1)
	report(Health{Healthy: true})
	close(f.running)
	<-ctx.Done()
	if f.atClose != nil {
		f.atClose()
	}
	return nil
}

func daemonConfig() *spec.Config {
	return &spec.Config{Name: "bot", Provider: spec.ProviderDiscord, Generation: 1, State: spec.StateRunning,
		Discord: &spec.DiscordConfig{BotToken: spec.NewSecret("tok"), ApplicationID: "app", GuildID: "g", ParentChannelID: "c"}}
}

func TestRunDaemonExits3WithoutConnectingWhenTheNameIsHeld(t *testing.T) {
	dir := t.TempDir()
	cfg := daemonConfig()
	paths := ownership.PathsFor(dir, cfg.Name)
	if err := fsstore.EnsureDir(paths); err != nil {
		t.Fatal(err)
	}
	first, err := fsstore.Acquire(paths, ownership.AcquireRequest{Kind: "discord", OwnerID: "owner-first", Identity: cfg.Identity(), Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Release(nil) })

	tr := &fakeTransport{running: make(chan struct{})}
	code, err := RunDaemon(context.Background(), DaemonOptions{AgentDir: dir, Owners: LocalOwners(fsstore.New(dir, fsstore.Options{})), OwnerID: "owner-second", Config: cfg, Log: testr.New(t)}, tr)
	var held *ownership.HeldError
	if code != daemonproto.ExitHeld || !errors.As(err, &held) {
		t.Errorf("RunDaemon beside a live owner = %d, %v; want %d and a *HeldError", code, err, daemonproto.ExitHeld)
	}
	if n := tr.runs.Load(); n != 0 {
		t.Errorf("the transport ran %d times for a name held by another", n)
	}
}

func TestRunDaemonClosesTheTransportBeforeTheRelease(t *testing.T) {
	dir := t.TempDir()
	cfg := daemonConfig()
	paths := ownership.PathsFor(dir, cfg.Name)
	var atClose ownership.Record
	tr := &fakeTransport{running: make(chan struct{}), atClose: func() { atClose = fsstore.ReadState(paths) }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-tr.running:
			cancel() // a signal
		case <-time.After(testTimeout):
		}
	}()
	code, err := RunDaemon(ctx, DaemonOptions{AgentDir: dir, Owners: LocalOwners(fsstore.New(dir, fsstore.Options{})), OwnerID: "owner-1", Config: cfg, Log: testr.New(t), Heartbeat: time.Hour}, tr)
	if code != daemonproto.ExitStopped || err != nil {
		t.Fatalf("RunDaemon = %d, %v; want a stop", code, err)
	}
	if s := atClose.State; s == nil || s.OwnerID != "owner-1" || s.StoppedAt != nil {
		t.Errorf("as the transport closed, the record was %+v; want it still ours and not released", atClose.State)
	}
	if s := fsstore.ReadState(paths).State; s == nil || s.StoppedAt == nil {
		t.Error("not released after the transport closed")
	}
}

// A daemon whose record another writer takes over stops its transport and
// exits 4 on that file event, long before its next heartbeat (an hour
// here): the loss is proved the moment the record changes.
func TestRunDaemonStopsTheMomentItsRecordIsTaken(t *testing.T) {
	dir := t.TempDir()
	cfg := daemonConfig()
	paths := ownership.PathsFor(dir, cfg.Name)
	tr := &fakeTransport{running: make(chan struct{})}
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := RunDaemon(context.Background(), DaemonOptions{AgentDir: dir, Owners: releasedAtCleanup(t, fsstore.New(dir, fsstore.Options{})),
			OwnerID: "owner-1", Config: cfg, Log: testr.New(t), Heartbeat: time.Hour}, tr)
		done <- result{code, err}
	}()
	select {
	case <-tr.running:
	case <-time.After(testTimeout):
		t.Fatal("the transport never ran")
	}
	// Its healthy heartbeat is the last write it makes for an hour: once
	// it is on disk, only the file event can end the daemon.
	st := waitRecord(t, paths, func(s *ownership.State) bool { return s.TransportHealthy })
	taken := *st
	taken.OwnerID = "owner-2"
	if err := os.WriteFile(paths.State, taken.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.code != daemonproto.ExitLost || !errors.Is(r.err, ownership.ErrOwnershipLost) {
			t.Fatalf("RunDaemon after its record was taken = %d, %v; want %d and ErrOwnershipLost", r.code, r.err, daemonproto.ExitLost)
		}
	case <-time.After(testTimeout):
		t.Fatal("the daemon ran on after its record was taken")
	}
	if s := fsstore.ReadState(paths).State; s == nil || s.OwnerID != "owner-2" || s.StoppedAt != nil {
		t.Fatalf("the record after the loss = %+v; the daemon must not touch another owner's record", s)
	}
}

// waitRecord waits, on the daemon dir's file events and with a deadline,
// until the record satisfies ok.
func waitRecord(t *testing.T, paths ownership.Paths, ok func(*ownership.State) bool) *ownership.State {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(paths.Dir); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(testTimeout)
	for {
		if s := fsstore.ReadState(paths).State; s != nil && ok(s) {
			return s
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			t.Fatal(err)
		case <-deadline:
			t.Fatalf("record %s never as wanted: %+v", paths.State, fsstore.ReadState(paths).State)
		}
	}
}

// releasedAtCleanup hands out claims from a and releases each when the
// test ends. A daemon that lost its name exits without a release, and its
// process drops the kernel-held name lock then; a test's process lives on,
// and a later test's dir can get the same inode, hence the same lock.
func releasedAtCleanup(t *testing.T, a ownership.Acquirer) Owners {
	return LocalOwners(acquirerFunc(func(name string, req ownership.AcquireRequest) (ownership.Claim, error) {
		c, err := a.Acquire(name, req)
		if err == nil {
			t.Cleanup(func() { _ = c.Release(nil) })
		}
		return c, err
	}))
}

type acquirerFunc func(name string, req ownership.AcquireRequest) (ownership.Claim, error)

func (f acquirerFunc) Acquire(name string, req ownership.AcquireRequest) (ownership.Claim, error) {
	return f(name, req)
}
