package discord_test

import (
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/spec"
)

// A daemon whose session starts for the day are down to the reserve does
// not identify: it says so, with when they reset, and connects once they
// have.
func TestIdentifyBudgetAtTheReserve(t *testing.T) {
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{"tok-d"}, Channels: []string{"chan-3"}, HeartbeatInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	f.SetSessionStarts("tok-d", discord.DefaultIdentifyReserve, 3*time.Second)

	cfg := &spec.DiscordConfig{BotToken: spec.NewSecret("tok-d"), ApplicationID: "app", GuildID: fakediscord.DefaultGuildID, ParentChannelID: "chan-3", APIURL: f.URL()}
	h, _, _ := providertest.StartTransport(t, discord.NewTransport(cfg, discord.TransportOptions{Log: testr.New(t)}))
	v := h.WaitFor(t, false)
	for v.Reason == "" {
		v = h.WaitFor(t, false)
	}
	if v.Reason != daemonproto.ReasonIdentifyBudgetLow || !strings.Contains(v.Err, "50 of 1000 session starts left") || !strings.Contains(v.Err, "resets them at") {
		t.Fatalf("report %+v, want IdentifyBudgetLow naming the budget and its reset", v)
	}
	if l := v.Logins; l == nil || l.Used != 950 || l.Limit != 1000 {
		t.Fatalf("logins %+v, want 950 of 1000 used", l)
	}
	if n := f.Snapshot().Tokens["tok-d"].Identifies; n != 0 {
		t.Fatalf("%d IDENTIFYs below the reserve, want none", n)
	}
	// The fake resets the budget after 3 s: the daemon connects then.
	v = h.WaitFor(t, true)
	// A new window: the one session start since is counted.
	if l := v.Logins; l == nil || l.Used != 1 || l.Limit != 1000 || l.ResetAt < time.Now().Add(23*time.Hour).UnixMilli() {
		t.Fatalf("logins %+v, want 1 of 1000 used, resetting in a day", l)
	}
	if n := f.Snapshot().Tokens["tok-d"].Identifies; n != 1 {
		t.Fatalf("%d IDENTIFYs after the reset, want 1", n)
	}
}
