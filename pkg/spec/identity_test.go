package spec

import "testing"

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
}
