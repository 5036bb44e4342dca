package chat_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// The crash tests run the daemon's relay in a child process (this test
// binary again, TestRelayCrashChild with RELAY_CHILD set) and SIGKILL it
// from outside. The child builds the relay exactly as a daemon does
// (chat.NewRelay: the provider's real poster, the real bus under an agent
// dir, the spec's render rules) against the parent's fake. It does not
// run chat.RunDaemon: that adds the ownership claim and the transport's
// gateway or socket, neither of which takes part in posting, and a slower
// start on each of the hundreds of restarts of the randomized run.
//
// Its environment:
//
//	RELAY_PROVIDER      discord or slack
//	RELAY_URL           the fake's base URL
//	RELAY_DIR           the agent dir (the bus is under it)
//	RELAY_NONCE_WINDOW  Discord's nonce window for the poster (a duration)
//	RELAY_CRASH_AT      a labelled step, "part:accepted"; with
//	RELAY_CRASH_KEY     the key (or message id) it must match, and
//	RELAY_INBOUND_USER  when set, the inbound side runs too, this user
//	                    authorized (the crash steps include its landing's)
//	RELAY_CRASH_MODE    crash: print "STEP <step> <key>" and block until
//	                    killed; pause: print it, then go on once a line
//	                    arrives on stdin.
//
// It prints "STARTED" once the relay settled (bus read, channel checked).
const (
	crashName     = "crash"
	discordToken  = "crash-bot-token"
	discordParent = "200000000000000077"
	slackToken    = "xoxb-crash-token"
	slackChannel  = "C0CRASH01"
)

func crashConfig(provider, url string) *spec.Config {
	cfg := &spec.Config{Name: crashName, Generation: 1, State: spec.StateRunning, Verbosity: spec.VerbosityVerbose}
	switch provider {
	case "discord":
		cfg.Provider = spec.ProviderDiscord
		cfg.Discord = &spec.DiscordConfig{BotToken: spec.NewSecret(discordToken), ApplicationID: "app", GuildID: "g",
			ParentChannelID: discordParent, APIURL: url}
	default:
		cfg.Provider = spec.ProviderSlack
		cfg.Slack = &spec.SlackConfig{BotToken: spec.NewSecret(slackToken), AppToken: spec.NewSecret("xapp-crash"),
			WorkspaceID: "T0CRASH01", ChannelID: slackChannel, APIURL: url}
	}
	return cfg
}

// testProvider is the provider with short request timeouts, so the relay
// may believe a lookup that finds nothing soon (Settle, past any timeout)
// and restarts stay quick; the fakes set no rate limit here, so Slack's
// pacing is off. nonceWindow, when set, is Discord's.
func testProvider(provider string, nonceWindow time.Duration) chat.Provider {
	if provider == "discord" {
		return discord.New(discord.Options{Timeout: 2 * time.Second, NonceWindow: nonceWindow})
	}
	return slack.New(slack.Options{Timeout: 2 * time.Second, PostInterval: -1})
}

// fenceOnly is the claim the child's relay is fenced by: the name is
// always its own (no other daemon runs against the bus). NewRelay uses
// Fence alone.
type fenceOnly struct{ ownership.Claim }

func (fenceOnly) Fence() error { return nil }

func TestRelayCrashChild(t *testing.T) {
	if os.Getenv("RELAY_CHILD") != "1" {
		t.Skip("the child process of the relay crash tests; they start it with RELAY_CHILD=1")
	}
	if err := runRelayChild(); err != nil {
		fmt.Fprintln(os.Stdout, "CHILD-ERROR", err)
		os.Exit(1)
	}
}

func runRelayChild() error {
	provider, url, dir := os.Getenv("RELAY_PROVIDER"), os.Getenv("RELAY_URL"), os.Getenv("RELAY_DIR")
	var o chat.RelayOptions
	o.MinBackoff, o.MaxBackoff = 5*time.Millisecond, 50*time.Millisecond
	o.Settle = 3 * time.Second
	var nonceWindow time.Duration
	if w := os.Getenv("RELAY_NONCE_WINDOW"); w != "" {
		d, err := time.ParseDuration(w)
		if err != nil {
			return fmt.Errorf("RELAY_NONCE_WINDOW: %w", err)
		}
		nonceWindow = d
	}
	var out sync.Mutex
	say := func(line string) {
		out.Lock()
		defer out.Unlock()
		fmt.Fprintln(os.Stdout, line)
	}
	if at := os.Getenv("RELAY_CRASH_AT"); at != "" {
		key, mode := os.Getenv("RELAY_CRASH_KEY"), os.Getenv("RELAY_CRASH_MODE")
		var once sync.Once
		o.Step = func(step, k string) {
			if step != at || k != key {
				return
			}
			once.Do(func() {
				say("STEP " + step + " " + k)
				if mode != "pause" {
					select {} // killed here
				}
				_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
			})
		}
		o.InboundStep = o.Step
	}
	cfg := crashConfig(provider, url)
	if u := os.Getenv("RELAY_INBOUND_USER"); u != "" {
		// The inbound side too, with no transport: it lands what the
		// history read at its start finds.
		if cfg.Discord != nil {
			cfg.Discord.AuthorizedUserIDs = []string{u}
		} else {
			cfg.Slack.AuthorizedUserIDs = []string{u}
		}
		o.Inbound = chat.NewInboundPort()
	}
	log := funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1, LogTimestamp: true})
	rc, err := chat.NewRelay(testProvider(provider, nonceWindow), cfg, dir, log, o)(fenceOnly{})
	if err != nil {
		return err
	}
	if err := rc.Start(context.Background()); err != nil {
		return err
	}
	// STARTED once the relay is ready to post (its bus read, its channel
	// checked): the parent's kill clock starts here, so a child whose
	// start-up outgrows the kill interval still gets its 100-400 ms of
	// posting, however long the journal has grown.
	for !rc.Settled() {
		select {
		case <-rc.RelayChanged():
		case <-rc.Done():
			return fmt.Errorf("the relay ended before it settled: %v", rc.Err())
		}
	}
	say("STARTED")
	log.Info("started")
	<-rc.Done()
	if err := rc.Err(); err != nil {
		return fmt.Errorf("the relay ended: %w", err)
	}
	return errors.New("the relay ended on its own, without an error")
}
