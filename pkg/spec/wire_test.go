package spec

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"testing"
)

func TestWireRoundTrip(t *testing.T) {
	for _, c := range []*Config{
		{Name: "d", Provider: ProviderDiscord, Generation: 3, Verbosity: VerbosityLean, ReadyTimeout: DefaultReadyTimeout,
			Discord: &DiscordConfig{BotToken: NewSecret("tok"), ApplicationID: "a", GuildID: "g", ParentChannelID: "p", AuthorizedUserIDs: []string{"u"}, APIURL: "http://127.0.0.1:1"}},
		{Name: "s", Provider: ProviderSlack, Redact: true, Verbosity: VerbosityVerbose, InboundSweep: 30 * DefaultInboundSweep / 300,
			Slack: &SlackConfig{BotToken: NewSecret("xoxb"), AppToken: NewSecret("xapp"), WorkspaceID: "T", ChannelID: "C", AuthorizedUserID: "U"}},
		{Name: "s2", Provider: ProviderSlack, Verbosity: VerbosityLean, PingOnAsk: true,
			Slack: &SlackConfig{BotToken: NewSecret("xoxb"), AppToken: NewSecret("xapp"), WorkspaceID: "T", ChannelID: "C", AuthorizedUserID: "U", AuthorizedUserIDs: []string{"U3", "U2"}, APIURL: "http://127.0.0.1:2"}},
	} {
		var buf bytes.Buffer
		if err := EncodeWire(&buf, c); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeWire(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if got.Identity() != c.Identity() || got.Name != c.Name || got.Generation != c.Generation || got.ReadyTimeout != c.ReadyTimeout || got.PingOnAsk != c.PingOnAsk {
			t.Errorf("round trip changed the config: %+v -> %+v", c, got)
		}
		// A config from a reconciler before inboundSweep sweeps at the default.
		if want := cmp.Or(c.InboundSweep, DefaultInboundSweep); got.InboundSweep != want {
			t.Errorf("round trip: inboundSweep %v -> %v, want %v", c.InboundSweep, got.InboundSweep, want)
		}
		if !slices.Equal(got.AuthorizedUsers(), c.AuthorizedUsers()) {
			t.Errorf("round trip changed the users: %q -> %q", c.AuthorizedUsers(), got.AuthorizedUsers())
		}
		if c.Slack != nil && (!slices.Equal(got.Slack.AuthorizedUserIDs, c.Slack.AuthorizedUserIDs) || got.Slack.AuthorizedUserID != c.Slack.AuthorizedUserID || got.Slack.APIURL != c.Slack.APIURL) {
			t.Errorf("round trip changed the slack block: %+v -> %+v", c.Slack, got.Slack)
		}
	}
}

func TestWireRejectsWithoutQuoting(t *testing.T) {
	for _, in := range []string{
		`{"provider":"discord","discord":{"botToken":"SECRET-x"`,
		`{"provider":"slack","discord":{"botToken":"SECRET-x"}}`,
		`{"provider":"discord","discord":{"botToken":""}}`,
	} {
		_, err := DecodeWire(strings.NewReader(in))
		if err == nil {
			t.Errorf("accepted %q", in)
			continue
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("error quotes the input: %v", err)
		}
	}
}

// A config without EncodeWire's final newline was cut short, even when
// what arrived is valid JSON: refused, never started on.
func TestWireRefusesAConfigCutShort(t *testing.T) {
	c := &Config{Name: "d", Provider: ProviderDiscord, Generation: 1,
		Discord: &DiscordConfig{BotToken: NewSecret("SECRET-tok"), ApplicationID: "a", GuildID: "g", ParentChannelID: "p"}}
	var buf bytes.Buffer
	if err := EncodeWire(&buf, c); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	_, err := DecodeWire(bytes.NewReader(whole[:len(whole)-1]))
	if err == nil {
		t.Fatal("accepted a config one byte short of its end")
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error quotes the input: %v", err)
	}
}
