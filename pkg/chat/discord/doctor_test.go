package discord_test

import (
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/doctor"
	"gjc.dev/reconciler/pkg/spec"
)

// What doctor says against the fake, check by check: what it found when
// a check passes, and the fix when something is withheld. Permissions
// need the channel (of a hidden one only View Channel is known); nothing
// after a refused token is asked.
func TestDoctorSays(t *testing.T) {
	t.Parallel()
	const user = "300000000000000001"
	for _, tc := range []struct {
		name   string
		fake   func(f *fakediscord.Server)
		cfg    func(d *spec.DiscordConfig)
		checks int    // lines, when not all twelve
		check  string // the line that says it
		ok     bool
		says   string
	}{
		{name: "all granted", check: "permission Manage Threads", ok: true, says: "granted in #channel-" + parent},
		{name: "the application", check: "application", ok: true, says: "(" + fakediscord.ApplicationID(token) + ")"},
		{name: "another application's token", fake: func(f *fakediscord.Server) { f.SetApplicationID(token, "42") },
			check: "application", says: "belongs to application 42 (fakebot-"},
		{name: "Message Content off", fake: func(f *fakediscord.Server) { f.SetMessageContentIntent(token, false) },
			check: "intents", says: `enable "Message Content Intent" under Bot > Privileged Gateway Intents for application ` + fakediscord.ApplicationID(token)},
		{name: "Message Content off, not needed", fake: func(f *fakediscord.Server) { f.SetMessageContentIntent(token, false) },
			cfg: func(d *spec.DiscordConfig) { d.AuthorizedUserIDs = nil }, check: "intents", ok: true, says: "no privileged intent needed"},
		{name: "no such channel", fake: func(f *fakediscord.Server) { f.SetChannelUnknown(parent, true) }, checks: 5,
			check: "channel", says: "Discord has no channel " + parent + " (404): copy the parent channel's id again"},
		{name: "another server's id", cfg: func(d *spec.DiscordConfig) { d.GuildID = "100000000000000009" }, checks: 5,
			check: "channel", says: "is in server " + fakediscord.DefaultGuildID + ", not guildId 100000000000000009"},
		{name: "View Channel denied", fake: func(f *fakediscord.Server) { f.SetPermission(token, fakediscord.PermViewChannel, false) }, checks: 6,
			check: "channel", ok: true, says: parent + " exists, but the bot may not view it (403)"},
		{name: "View Channel's fix", fake: func(f *fakediscord.Server) { f.SetPermission(token, fakediscord.PermViewChannel, false) }, checks: 6,
			check: "permission View Channel", says: "the bot's roles grant View Channel, but channel " + parent + "'s permission overwrites deny it"},
		{name: "Add Reactions' fix", fake: func(f *fakediscord.Server) { f.SetPermission(token, fakediscord.PermAddReactions, false) },
			check: "permission Add Reactions", says: "channel #channel-" + parent + "'s permission overwrites deny Add Reactions to the role fakebot-"},
		{name: "a refused token", fake: func(f *fakediscord.Server) { f.SetTokenRejected(token, true) }, checks: 2,
			check: "token", says: "Discord refused the bot token (401)"},
	} {
		f := newRig(t, discord.Options{}, fakediscord.Options{}).f
		if tc.fake != nil {
			tc.fake(f)
		}
		cfg := &spec.Config{Provider: spec.ProviderDiscord, Discord: &spec.DiscordConfig{BotToken: spec.NewSecret(token),
			ApplicationID: fakediscord.ApplicationID(token), GuildID: f.GuildID(), ParentChannelID: parent,
			AuthorizedUserIDs: []string{user}, APIURL: f.URL()}}
		if tc.cfg != nil {
			tc.cfg(cfg.Discord)
		}
		lines := discord.New(discord.Options{}).Doctor(ctx(t), cfg)
		if testing.Verbose() {
			var b strings.Builder
			doctor.Print(&b, tc.name+":", lines)
			t.Log(b.String())
		}
		want := tc.checks
		if want == 0 {
			want = 12
		}
		if len(lines) != want {
			t.Errorf("%s: %d lines, want %d: %+v", tc.name, len(lines), want, lines)
		}
		if got := line(lines, tc.check); got.OK != tc.ok || !strings.Contains(got.Says, tc.says) {
			t.Errorf("%s: %s: %+v, want ok=%v saying %q", tc.name, tc.check, got, tc.ok, tc.says)
		}
		if !tc.ok && doctor.Failed(lines) != 1 {
			t.Errorf("%s: %d lines failed, want that one: %+v", tc.name, doctor.Failed(lines), lines)
		}
	}
}

// line is the line of a check, or a failed one saying it is missing.
func line(lines []doctor.Line, check string) doctor.Line {
	for _, l := range lines {
		if l.Check == check {
			return l
		}
	}
	return doctor.Fail(check, "(no such line)")
}
