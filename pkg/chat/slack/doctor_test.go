package slack_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/doctor"
	"gjc.dev/reconciler/pkg/spec"
)

// runDoctor runs Slack's doctor against a fake holding channel, after
// change, and returns its lines.
func runDoctor(t *testing.T, channel string, change func(*fakeslack.Server)) []doctor.Line {
	t.Helper()
	return doctorAgainst(t, fakeslack.Options{Channels: []string{channel}, TeamID: suiteTeam}, change)
}

// doctorAgainst runs Slack's doctor against a fake started with opts (its
// first channel the configured one), after change.
func doctorAgainst(t *testing.T, opts fakeslack.Options, change func(*fakeslack.Server)) []doctor.Line {
	t.Helper()
	opts.BotTokens = []string{suiteToken}
	f, err := fakeslack.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	change(f)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := &spec.Config{Provider: spec.ProviderSlack, Slack: &spec.SlackConfig{BotToken: spec.NewSecret(suiteToken),
		AppToken: spec.NewSecret("xapp-doctor"), WorkspaceID: suiteTeam, ChannelID: opts.Channels[0], APIURL: f.URL()}}
	lines := slack.Provider.Doctor(ctx, cfg)
	if n := len(f.Snapshot().Messages); n != 0 {
		t.Errorf("doctor left %d messages; it must post nothing", n)
	}
	return lines
}

func failed(lines []doctor.Line) []string {
	var out []string
	for _, l := range lines {
		if !l.OK {
			out = append(out, l.Check)
		}
	}
	return out
}

func checks(lines []doctor.Line) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.Check)
	}
	return out
}

// The scopes are judged for the channel's kind: a public channel's reader
// needs the channels: scopes, a private one's the groups: ones. Each scope
// the relay uses, withheld in turn, fails its own line alone, with the
// scope to add; one the channel's kind does not use fails nothing.
func TestDoctorScopeLines(t *testing.T) {
	for _, tc := range []struct {
		name, channel string
		scopes        []string // the relay's, in the order doctor reports them
		unused        []string
	}{
		{"public", "C0PUBLIC1", []string{"chat:write", "channels:read", "channels:history", "reactions:write", "files:write", "files:read"}, []string{"groups:read", "groups:history"}},
		{"private", "G0PRIVATE", []string{"chat:write", "groups:read", "groups:history", "reactions:write", "files:write", "files:read"}, []string{"channels:read", "channels:history"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := []string{"bot token", "channel"}
			for _, sc := range tc.scopes {
				want = append(want, "scope "+sc)
			}
			want = append(want, "socket mode", "clock")
			lines := runDoctor(t, tc.channel, func(*fakeslack.Server) {})
			if got := checks(lines); !slices.Equal(got, want) {
				t.Errorf("checks %q, want %q", got, want)
			}
			if f := failed(lines); f != nil {
				t.Errorf("with every scope granted, failed: %q", f)
			}
			for _, sc := range tc.scopes {
				lines := runDoctor(t, tc.channel, func(f *fakeslack.Server) { f.SetScopeGranted(sc, false) })
				if f := failed(lines); !slices.Equal(f, []string{"scope " + sc}) {
					t.Errorf("%s withheld: failed %q, want that scope's line alone", sc, f)
					continue
				}
				for _, l := range lines {
					if !l.OK && !strings.Contains(l.Says, "add "+sc) {
						t.Errorf("%s withheld: %q does not say to add it", sc, l.Says)
					}
				}
			}
			for _, sc := range tc.unused {
				if f := failed(runDoctor(t, tc.channel, func(f *fakeslack.Server) { f.SetScopeGranted(sc, false) })); f != nil {
					t.Errorf("%s, unused by a %s channel, withheld: failed %q", sc, tc.name, f)
				}
			}
		})
	}
}

// The usual mistake with a private channel: the app has the channels:
// scopes only. conversations.info answers missing_scope, and the lines say
// which groups: scopes to add, not that the channel is wrong.
func TestDoctorPrivateChannelWithPublicScopes(t *testing.T) {
	lines := runDoctor(t, "G0PRIVATE", func(f *fakeslack.Server) {
		f.SetScopeGranted("groups:read", false)
		f.SetScopeGranted("groups:history", false)
	})
	if f := failed(lines); !slices.Equal(f, []string{"scope groups:read", "scope groups:history"}) {
		t.Errorf("failed %q, want the two groups: scopes", f)
	}
}

// What else doctor tells apart, each a failed line with what to do.
func TestDoctorFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*fakeslack.Server)
		failed []string
		says   string
	}{
		{"archived", func(f *fakeslack.Server) { f.SetChannelArchived(suiteChannel, true) }, []string{"channel"}, "archived"},
		{"not a member", func(f *fakeslack.Server) { f.SetNotInChannel(suiteChannel, true) }, []string{"channel"}, "/invite @fakebot"},
		{"no such channel", func(f *fakeslack.Server) { f.SetChannelUnknown(suiteChannel, true) }, []string{"channel"}, "check channelId"},
		{"bot token refused", func(f *fakeslack.Server) { f.SetTokenRejected(suiteToken, true) }, []string{"bot token"}, "refused the bot token"},
		{"app token refused", func(f *fakeslack.Server) { f.SetTokenRejected("xapp-doctor", true) }, []string{"socket mode"}, "refused the app-level token"},
		{"no connections:write", func(f *fakeslack.Server) { f.SetScopeGranted("connections:write", false) }, []string{"socket mode"}, "lacks connections:write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := runDoctor(t, suiteChannel, tc.change)
			if f := failed(lines); !slices.Equal(f, tc.failed) {
				t.Fatalf("failed %q, want %q: %+v", f, tc.failed, lines)
			}
			for _, l := range lines {
				if !l.OK && !strings.Contains(l.Says, tc.says) {
					t.Errorf("%s: %q does not say %q", l.Check, l.Says, tc.says)
				}
			}
		})
	}
}

// A bot token of another workspace than workspaceId fails the token's line,
// naming both; the checks go on, the token being good.
func TestDoctorOtherWorkspace(t *testing.T) {
	lines := doctorAgainst(t, fakeslack.Options{Channels: []string{suiteChannel}, TeamID: "T0OTHER01"}, func(*fakeslack.Server) {})
	if f := failed(lines); !slices.Equal(f, []string{"bot token"}) {
		t.Fatalf("failed %q, want the bot token's line alone", f)
	}
	if says := lines[0].Says; !strings.Contains(says, "T0OTHER01") || !strings.Contains(says, "workspaceId "+suiteTeam) {
		t.Errorf("%q does not name both workspaces", says)
	}
	if got := checks(lines); !slices.Equal(got, doctorChecks) {
		t.Errorf("checks %q, want %q", got, doctorChecks)
	}
}

// The socket line counts the app's other Socket Mode connections from
// the hello of its own: one is a running daemon's; two are TokenInUse.
func TestDoctorCountsTheAppsConnections(t *testing.T) {
	for _, tc := range []struct {
		running int
		ok      bool
		says    string
	}{
		{0, true, "no other Socket Mode connection"},
		{1, true, "1 other Socket Mode connection of the app is open"},
		{2, false, "Slack counts 2 other Socket Mode connections of the app (TokenInUse): Slack splits events between them"},
	} {
		lines := runDoctor(t, suiteChannel, func(f *fakeslack.Server) {
			cfg := &spec.SlackConfig{BotToken: spec.NewSecret(suiteToken), AppToken: spec.NewSecret("xapp-doctor"), WorkspaceID: suiteTeam, ChannelID: suiteChannel, APIURL: f.URL()}
			for range tc.running {
				providertest.StartTransport(t, slack.NewTransport(cfg, slack.TransportOptions{Log: testr.New(t)}))
			}
			ctx, cancel := context.WithTimeout(context.Background(), providertest.Wait)
			defer cancel()
			if _, err := f.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return s.Apps["xapp-doctor"].Live == tc.running }); err != nil {
				t.Fatal(err)
			}
		})
		l := lines[len(lines)-2]
		if l.Check != "socket mode" || l.OK != tc.ok || !strings.Contains(l.Says, tc.says) {
			t.Errorf("%d running: %+v, want ok=%v saying %q", tc.running, l, tc.ok, tc.says)
		}
	}
}
