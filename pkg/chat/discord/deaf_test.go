package discord_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// A gateway connection that stays up and delivers nothing: the sweep
// lands the reply it missed, counts it missed, and the transport
// connects again, by a RESUME that costs no IDENTIFY; replies come live
// again after it, and the RESUME's replay of the missed one lands
// nothing twice.
func TestDeafConnection(t *testing.T) {
	const tok, parentID = "tok-deaf", "200000000000000043"
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{tok}, Channels: []string{parentID}, HeartbeatInterval: 200 * time.Millisecond})
	providertest.Started(t, f, err)
	cfg := &spec.Config{Name: "deaf", Generation: 1, State: spec.StateRunning, Verbosity: spec.VerbosityVerbose, InboundSweep: spec.DefaultInboundSweep,
		Provider: spec.ProviderDiscord, Discord: &spec.DiscordConfig{BotToken: spec.NewSecret(tok), ApplicationID: fakediscord.ApplicationID(tok),
			GuildID: fakediscord.DefaultGuildID, ParentChannelID: parentID, APIURL: f.URL(), AuthorizedUserIDs: []string{user}}}
	dir := t.TempDir()
	dirs, err := bus.Paths(dir, cfg.Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), providertest.Wait)
	defer cancel()
	port := chat.NewInboundPort()
	rc, err := chat.NewRelay(discord.New(discord.Options{Timeout: 2 * time.Second}), cfg, dir, testr.New(t),
		chat.RelayOptions{Inbound: port, InboundSweep: time.Second, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Settle: 3 * time.Second})(fenceOnly{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		_ = rc.Stop(sctx)
	})
	health, _, _ := providertest.StartTransport(t, discord.NewTransport(cfg.Discord, discord.TransportOptions{Log: testr.New(t), Inbound: port}))
	health.WaitFor(t, true)

	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "01", Session: "s1", Event: bus.EventOpen, Title: "deaf"}); err != nil {
		t.Fatal(err)
	}
	sn, err := f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return len(s.Threads) == 1 })
	if err != nil {
		t.Fatal(err)
	}
	thread := sn.Threads[0].ID
	relay := func(what string, cond func(*ownership.RelayState) bool) *ownership.RelayState {
		t.Helper()
		for {
			if s := rc.RelayState(); s != nil && cond(s) {
				return s
			}
			select {
			case <-rc.RelayChanged():
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
				t.Fatalf("%s: relay %+v", what, rc.RelayState())
			}
		}
	}
	reply := func(text string) {
		t.Helper()
		if _, err := f.InjectMessage(thread, user, text); err != nil {
			t.Fatal(err)
		}
	}

	reply("heard live")
	relay("the live reply", func(s *ownership.RelayState) bool { return s.InboxLanded == 1 })
	if n := f.Deafen(); n != 1 {
		t.Fatalf("deafened %d connections", n)
	}
	reply("not heard")
	s := relay("the sweep's landing, counted missed", func(s *ownership.RelayState) bool { return s.InboxLanded == 2 && s.InboxMissed > 0 })
	if s.InboxMissed != 1 {
		t.Errorf("missed %d, want the one reply the connection did not deliver", s.InboxMissed)
	}
	down := health.WaitFor(t, false)
	if !strings.Contains(down.Err, "delivers nothing") {
		t.Errorf("reconnect reported as %q, want why", down.Err)
	}
	health.WaitFor(t, true)
	st := f.Snapshot().Tokens[tok]
	if st.Resumes != 1 || st.Identifies != 1 || st.MaxLive != 1 {
		t.Fatalf("stats %+v: want the reconnect to RESUME, no second IDENTIFY, never two live", st)
	}

	reply("heard again")
	s = relay("the reply after the reconnect", func(s *ownership.RelayState) bool { return s.InboxLanded == 3 })
	if s.InboxMissed != 1 {
		t.Errorf("missed %d after the reconnect, want still 1", s.InboxMissed)
	}
}
