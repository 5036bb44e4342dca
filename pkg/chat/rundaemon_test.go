package chat

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/spec"
)

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
	code, err := RunDaemon(context.Background(), DaemonOptions{AgentDir: dir, Owners: fsstore.New(dir, fsstore.Options{}), OwnerID: "owner-second", Config: cfg, Log: testr.New(t)}, tr)
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
	code, err := RunDaemon(ctx, DaemonOptions{AgentDir: dir, Owners: fsstore.New(dir, fsstore.Options{}), OwnerID: "owner-1", Config: cfg, Log: testr.New(t), Heartbeat: time.Hour}, tr)
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
