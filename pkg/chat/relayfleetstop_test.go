package chat_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/fleetbus"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
	"gjc.dev/reconciler/pkg/spec"
)

// unansweredFinish is a fleet claim whose cluster stops answering just
// as the relay finishes a message: the finish's fenced write waits until
// its context ends, as one to an owner cut off from etcd does.
type unansweredFinish struct {
	ownership.Claim
	owner    fleetbus.Owner
	entered  chan struct{}
	returned chan struct{}
}

func (c *unansweredFinish) Client() *clientv3.Client { return c.owner.Client() }
func (c *unansweredFinish) Dir() string              { return c.owner.Dir() }
func (c *unansweredFinish) Guarded(ctx context.Context, what string, ops ...clientv3.Op) error {
	if !strings.HasPrefix(what, "finishing") {
		return c.owner.Guarded(ctx, what, ops...)
	}
	close(c.entered)
	<-ctx.Done()
	close(c.returned)
	return ctx.Err()
}

// A fleet relay's stop ends a finish still waiting on the cluster. The
// relay's worker runs it inline and the transport closes only after the
// relay stopped, so a finish left to its own timeout would keep a cut-off
// owner connected past the moment its lease may expire.
func TestFleetRelayStopEndsAFinishWaitingOnTheCluster(t *testing.T) {
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{"fleet-bot-token"}, Channels: []string{"200000000000000077"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	cli := etcdtest.Start(t, etcdtest.Options{}).Client(t)
	agentDir := t.TempDir()
	store, err := etcdstore.New(etcdstore.Options{Client: cli, AgentDir: agentDir, Machine: "m1", LeaseTTL: 5 * time.Second, Prefix: "/fleet"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	cfg := &spec.Config{Name: "fleetstop", Generation: 1, State: spec.StateRunning, Verbosity: spec.VerbosityVerbose,
		Provider: spec.ProviderDiscord, Discord: &spec.DiscordConfig{BotToken: spec.NewSecret("fleet-bot-token"),
			ApplicationID: "app", GuildID: "g", ParentChannelID: "200000000000000077", APIURL: f.URL()}}
	dirs, err := bus.Paths(agentDir, cfg.Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	c, err := store.AcquireClaim(cfg.Name, ownership.AcquireRequest{Kind: "discord", OwnerID: "owner-1", Identity: "7040273bec62d43f", Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	claim := &unansweredFinish{Claim: c, owner: c, entered: make(chan struct{}), returned: make(chan struct{})}

	data, err := bus.Encode(bus.Message{ID: "p1", Session: "s1", Text: "to post"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(context.Background(), fleetbus.Dir("/fleet", cfg.Name)+"outbox/p1", string(data)); err != nil {
		t.Fatal(err)
	}
	var o chat.RelayOptions
	o.MinBackoff, o.MaxBackoff = 5*time.Millisecond, 50*time.Millisecond
	shared := fleetbus.ForRelay(claim, dirs, testr.New(t).WithName("fleet-outbox"))
	rc, err := chat.NewRelay(discord.New(discord.Options{Timeout: 2 * time.Second}), cfg, agentDir, testr.New(t), o)(claim, shared)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-claim.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the relay did not finish the posted message within 30s")
	}
	if s := f.Snapshot(); len(s.Messages) == 0 {
		t.Fatal("the relay finished a message it did not post")
	}

	// Well inside the 10s a finish may take on its own.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := rc.Stop(ctx); err != nil {
		t.Fatalf("stop: %v", err)
	}
	select {
	case <-claim.returned:
	default:
		t.Fatal("the relay stopped with its finish still waiting on the cluster")
	}
}
