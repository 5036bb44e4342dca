package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

// The vectors of DESIGN section 3, which are the reference system's identities.
func TestIdentityVectors(t *testing.T) {
	discord := Config{Redact: false, Verbosity: VerbosityLean, Discord: &DiscordConfig{
		BotToken: NewSecret("discord-token-123"), ApplicationID: "app-1", GuildID: "guild-2", ParentChannelID: "chan-3",
	}}
	if got, want := discord.Identity(), "7040273bec62d43f"; got != want {
		t.Errorf("discord identity = %s, want %s", got, want)
	}
	slack := Config{Redact: true, Verbosity: VerbosityVerbose, Slack: &SlackConfig{
		BotToken: NewSecret("xoxb-1"), AppToken: NewSecret("xapp-2"), WorkspaceID: "T123", ChannelID: "C456",
	}}
	if got, want := slack.Identity(), "df9a87a1207d9253"; got != want {
		t.Errorf("slack identity = %s, want %s", got, want)
	}
}

func TestIdentityAddedFields(t *testing.T) {
	base := func() Config {
		return Config{Verbosity: VerbosityLean, Discord: &DiscordConfig{
			BotToken: NewSecret("discord-token-123"), ApplicationID: "app-1", GuildID: "guild-2", ParentChannelID: "chan-3",
		}}
	}
	ref := base()
	withURL := base()
	withURL.Discord.APIURL = "http://127.0.0.1:1"
	withUsers := base()
	withUsers.Discord.AuthorizedUserIDs = []string{"b", "a"}
	sameUsers := base()
	sameUsers.Discord.AuthorizedUserIDs = []string{"a", "b"}
	if withURL.Identity() == ref.Identity() {
		t.Error("apiURL does not change the identity")
	}
	if withUsers.Identity() == ref.Identity() {
		t.Error("authorizedUserIds do not change the identity")
	}
	if withUsers.Identity() != sameUsers.Identity() {
		t.Error("the order of authorizedUserIds changes the identity")
	}
	pinging := base()
	pinging.PingOnAsk = true
	if pinging.Identity() == ref.Identity() {
		t.Error("pingOnAsk does not change the identity")
	}
}

func TestSlackIdentityAddedFields(t *testing.T) {
	base := func() Config {
		return Config{Redact: true, Verbosity: VerbosityVerbose, Slack: &SlackConfig{
			BotToken: NewSecret("xoxb-1"), AppToken: NewSecret("xapp-2"), WorkspaceID: "T123", ChannelID: "C456",
		}}
	}
	ref := base()
	withURL := base()
	withURL.Slack.APIURL = "http://127.0.0.1:1"
	withUsers := base()
	withUsers.Slack.AuthorizedUserIDs = []string{"U2", "U1"}
	sameUsers := base()
	sameUsers.Slack.AuthorizedUserIDs = []string{"U1", "U2"}
	if withURL.Identity() == ref.Identity() {
		t.Error("apiURL does not change the identity")
	}
	if withUsers.Identity() == ref.Identity() {
		t.Error("authorizedUserIds do not change the identity")
	}
	if withUsers.Identity() != sameUsers.Identity() {
		t.Error("the order of authorizedUserIds changes the identity")
	}
	// authorizedUserId alone is the reference's field, in the reference's
	// place: the identity is the reference computation over the seven values.
	single := base()
	single.Slack.AuthorizedUserID = "U9"
	sum := sha256.Sum256([]byte(strings.Join([]string{"xoxb-1", "xapp-2", "T123", "C456", "U9", "true", "verbose"}, "\x00")))
	if got, want := single.Identity(), hex.EncodeToString(sum[:])[:16]; got != want {
		t.Errorf("identity with authorizedUserId = %s, want the reference's %s", got, want)
	}
	// The list is appended, never merged into the reference's field.
	asList := base()
	asList.Slack.AuthorizedUserIDs = []string{"U9"}
	if asList.Identity() == single.Identity() {
		t.Error("authorizedUserIds [U9] has the identity of authorizedUserId U9")
	}
}

func TestAuthorizedUsers(t *testing.T) {
	slack := Config{Slack: &SlackConfig{AuthorizedUserID: "U2", AuthorizedUserIDs: []string{"U3", "U2", "U1"}}}
	if got, want := slack.AuthorizedUsers(), []string{"U1", "U2", "U3"}; !slices.Equal(got, want) {
		t.Errorf("slack users = %q, want %q", got, want)
	}
	only := Config{Slack: &SlackConfig{AuthorizedUserID: "U2"}}
	if got, want := only.AuthorizedUsers(), []string{"U2"}; !slices.Equal(got, want) {
		t.Errorf("slack single user = %q, want %q", got, want)
	}
	discord := Config{Discord: &DiscordConfig{AuthorizedUserIDs: []string{"b", "a", "b"}}}
	if got, want := discord.AuthorizedUsers(), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("discord users = %q, want %q", got, want)
	}
	for _, c := range []Config{{Slack: &SlackConfig{}}, {Discord: &DiscordConfig{}}, {}} {
		if got := c.AuthorizedUsers(); len(got) != 0 {
			t.Errorf("no users configured, got %q", got)
		}
	}
	// The result is a copy: the filter cannot change the config.
	users := discord.AuthorizedUsers()
	users[0] = "x"
	if discord.Discord.AuthorizedUserIDs[1] != "a" {
		t.Error("AuthorizedUsers shares the config's slice")
	}
}
