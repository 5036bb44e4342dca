package discord_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// fenceOnly fences nothing: no other daemon runs against the test's bus.
type fenceOnly struct{ ownership.Claim }

func (fenceOnly) Fence() error { return nil }

// An ask posted by the daemon's relay is decided through the gateway by
// its transport: the real relay, inbound side and transport against
// fakediscord, in this process. The lead's providertest decision cases
// cover the crash points; this is Discord's wiring, and the figures of
// the click's answer against Discord's 3 s.
func TestAskDecidedThroughTheGateway(t *testing.T) {
	const tok, parentID, stranger = "tok-ask", "200000000000000042", "300000000000000999"
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{tok}, Channels: []string{parentID}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	f.SetGlobalName(user, "Alice")
	cfg := &spec.Config{Name: "asker", Generation: 1, State: spec.StateRunning, Verbosity: spec.VerbosityVerbose, PingOnAsk: true,
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

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	log := testr.New(t)
	port := chat.NewInboundPort()
	rc, err := chat.NewRelay(discord.New(discord.Options{Timeout: 2 * time.Second}), cfg, dir, log,
		chat.RelayOptions{Inbound: port, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Settle: 3 * time.Second})(fenceOnly{}, nil)
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
	tctx, stopTransport := context.WithCancel(ctx)
	done, healthy := make(chan struct{}), make(chan struct{}, 1)
	go func() {
		defer close(done)
		_ = discord.NewTransport(cfg.Discord, discord.TransportOptions{Log: log, Inbound: port, AckWindow: time.Second}).Run(tctx, func(h chat.Health) {
			if h.Healthy {
				select {
				case healthy <- struct{}{}:
				default:
				}
			}
		})
	}()
	t.Cleanup(func() { stopTransport(); <-done })
	select { // READY: the bot's session gets the clicks from now on
	case <-healthy:
	case <-ctx.Done():
		t.Fatal("the transport never came up")
	}

	// asks posts one ask and waits for its buttons in its thread.
	ask := func(id, text string) (thread, msg string) {
		t.Helper()
		m := bus.Message{ID: id, Session: "s1", Event: bus.EventAsk, Text: text, Choices: []string{"Approve", "Deny"},
			ExpiresAt: bus.InboxTime(time.Now().Add(time.Hour))}
		if _, err := bus.Write(dirs.Outbox, m); err != nil {
			t.Fatal(err)
		}
		isAsk := func(x fakediscord.Message) bool {
			return len(x.Buttons()) == 2 && strings.HasPrefix(x.Buttons()[0], id+":")
		}
		s, err := f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return slices.ContainsFunc(s.Messages, isAsk) })
		if err != nil {
			t.Fatalf("the ask %s was not posted with its buttons: %v", id, err)
		}
		i := slices.IndexFunc(s.Messages, isAsk)
		// A click is decided once the relay handed the posted ask to the
		// inbound side: it is open then.
		for st := rc.RelayState(); st == nil || st.AsksOpen == 0; st = rc.RelayState() {
			select {
			case <-rc.RelayChanged():
			case <-ctx.Done():
				t.Fatalf("the ask %s was never open: %+v", id, st)
			}
		}
		return s.Messages[i].ChannelID, s.Messages[i].ID
	}
	// click clicks and returns the acknowledged answer.
	click := func(thread, msg, who, data string) (fakediscord.Interaction, fakediscord.Answer) {
		t.Helper()
		in, err := f.Click(thread, msg, who, data)
		if err != nil {
			t.Fatal(err)
		}
		s, err := f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { i, _ := s.Interaction(in.ID); return len(i.Answers) > 0 })
		if err != nil {
			t.Fatalf("click %s was not answered: %v", in.ID, err)
		}
		i, _ := s.Interaction(in.ID)
		a, ok := i.Acknowledged()
		if !ok || len(i.Answers) != 1 {
			t.Fatalf("click %s: answers %+v, want one that acknowledged it", in.ID, i.Answers)
		}
		return i, a
	}

	askID := "01JASKDISCORD0000000000001"
	thread, msg := ask(askID, "May I run make?")
	if m := f.Snapshot().In(thread); !strings.HasPrefix(m[len(m)-1].Content, "<@"+user+">\n") {
		t.Fatalf("the ask does not ping its user: %q", m[len(m)-1].Content)
	}
	if _, a := click(thread, msg, stranger, bus.ChoiceData(askID, 0)); a.Content != "You may not decide this question." || a.Flags != 64 {
		t.Fatalf("a stranger's click answered %+v", a)
	}
	if d := decisions(t, dirs); len(d) != 0 {
		t.Fatalf("a stranger's click landed %v", d)
	}
	_, a := click(thread, msg, user, bus.ChoiceData(askID, 1))
	if a.Content != "Decided: Deny" || a.Flags != 64 {
		t.Fatalf("the authorized click answered %+v", a)
	}
	if d := decisions(t, dirs); len(d) != 1 || d[0].Ask != askID || d[0].Choice != "Deny" || d[0].User != user {
		t.Fatalf("inbox holds %+v, want the one decision Deny by %s", d, user)
	}
	// The relay edits the question with the outcome, its buttons gone.
	if _, err := f.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
		for _, m := range s.In(thread) {
			if m.ID == msg {
				return m.Buttons() == nil && strings.Contains(m.Content, "Deny") && strings.Contains(m.Content, "Alice")
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the question was not edited with its outcome: %v; %+v", err, f.Snapshot().In(thread))
	}

	// The figures: the clicks' answers (sent once the decision is
	// durable) against Discord's 3 s, over asks decided one by one.
	var took []time.Duration
	for i := range 20 {
		id := askID[:len(askID)-2] + string(rune('A'+i/10)) + string(rune('0'+i%10))
		th, m := ask(id, "Question "+id)
		in, a := click(th, m, user, bus.ChoiceData(id, 0))
		if a.Content != "Decided: Approve" {
			t.Fatalf("ask %s: answered %+v", id, a)
		}
		took = append(took, a.At.Sub(in.At))
	}
	slices.Sort(took)
	t.Logf("click made at the fake to its answer (the decision durable before it), %d asks: p50 %v, p99 %v, max %v; Discord's deadline %v",
		len(took), took[len(took)/2], took[len(took)*99/100], took[len(took)-1], fakediscord.DefaultInteractionDeadline)
	if took[len(took)-1] >= fakediscord.DefaultInteractionDeadline {
		t.Fatalf("a click was answered after %v", took[len(took)-1])
	}

	// Discord delivers at least once: a RESUME that replays every click
	// lands nothing new; each replay is answered as already decided (or
	// refused again), which Discord refuses as acknowledged before.
	landed := len(decisions(t, dirs))
	f.ReplayAllOnNextResume()
	f.DropConnections()
	snap, err := f.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
		return !slices.ContainsFunc(s.Interactions, func(i fakediscord.Interaction) bool { return len(i.Answers) < 2 })
	})
	if err != nil {
		t.Fatalf("the replayed clicks were not all answered: %v", err)
	}
	for _, i := range snap.Interactions {
		if a := i.Answers[1]; a.Code != 40060 || (a.Content != "You may not decide this question." && !strings.HasPrefix(a.Content, "Already decided: ")) {
			t.Errorf("replayed click %s answered %+v", i.ID, a)
		}
	}
	if n := len(decisions(t, dirs)); n != landed {
		t.Fatalf("the replays landed %d decisions more", n-landed)
	}
}

// decisions are the decisions in the inbox.
func decisions(t *testing.T, dirs bus.Dirs) []bus.InboxMessage {
	t.Helper()
	var out []bus.InboxMessage
	sessions, err := os.ReadDir(dirs.Inbox)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		files, err := os.ReadDir(dirs.Inbox + "/" + s.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(dirs.Inbox + "/" + s.Name() + "/" + f.Name())
			if err != nil {
				t.Fatal(err)
			}
			m, err := bus.DecodeInbox(b)
			if err != nil {
				t.Fatal(err)
			}
			if m.IsDecision() {
				out = append(out, m)
			}
		}
	}
	return out
}
