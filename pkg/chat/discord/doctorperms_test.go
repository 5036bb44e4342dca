package discord

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Each required permission withheld in turn, by the bot's role or by
// each kind of channel overwrite: exactly its line fails, and the fix
// names it and where to grant it. Granted some other way, none fails.
func TestPermissionLines(t *testing.T) {
	const guildID, roleID, botID, otherRole = "10", "20", "30", "40"
	guild := func(everyone, role int64) *discordgo.Guild {
		return &discordgo.Guild{ID: guildID, OwnerID: "99", Roles: []*discordgo.Role{
			{ID: guildID, Name: "@everyone", Permissions: everyone},
			{ID: roleID, Name: "relay", Permissions: role},
			{ID: otherRole, Name: "mods", Permissions: discordgo.PermissionAdministrator},
		}}
	}
	deny := func(id string, typ discordgo.PermissionOverwriteType, bit int64) *discordgo.PermissionOverwrite {
		return &discordgo.PermissionOverwrite{ID: id, Type: typ, Deny: bit}
	}
	type tc struct {
		name      string
		g         *discordgo.Guild
		overwrite []*discordgo.PermissionOverwrite
		roles     []string
		fails     string // the permission that fails; "" none
		where     string // in its fix
	}
	var cases []tc
	for _, p := range requiredPermissions {
		cases = append(cases,
			tc{"the role lacks " + p.name, guild(0, invitePermissions&^p.bit), nil, []string{roleID}, p.name, "give it to the bot's role (relay) under Server Settings > Roles"},
			tc{"the bot's role denied " + p.name, guild(0, invitePermissions), []*discordgo.PermissionOverwrite{deny(roleID, discordgo.PermissionOverwriteTypeRole, p.bit)},
				[]string{roleID}, p.name, "overwrites deny " + p.name + " to the role relay: allow it there under Edit Channel > Permissions"},
			tc{"@everyone denied " + p.name, guild(0, invitePermissions), []*discordgo.PermissionOverwrite{deny(guildID, discordgo.PermissionOverwriteTypeRole, p.bit)},
				[]string{roleID}, p.name, "deny " + p.name + " to @everyone"},
			tc{"the bot denied " + p.name, guild(0, invitePermissions), []*discordgo.PermissionOverwrite{deny(botID, discordgo.PermissionOverwriteTypeMember, p.bit)},
				[]string{roleID}, p.name, "deny " + p.name + " to the bot itself"},
			tc{"@everyone denied " + p.name + ", the bot's role allowed it", guild(0, invitePermissions), []*discordgo.PermissionOverwrite{
				deny(guildID, discordgo.PermissionOverwriteTypeRole, p.bit), {ID: roleID, Type: discordgo.PermissionOverwriteTypeRole, Allow: p.bit}},
				[]string{roleID}, "", ""},
		)
	}
	cases = append(cases,
		tc{"granted to @everyone", guild(invitePermissions, 0), nil, []string{roleID}, "", ""},
		tc{"the owner", &discordgo.Guild{ID: guildID, OwnerID: botID}, nil, nil, "", ""},
		tc{"an administrator despite overwrites", guild(0, 0), []*discordgo.PermissionOverwrite{deny(guildID, discordgo.PermissionOverwriteTypeRole, invitePermissions)},
			[]string{roleID, otherRole}, "", ""},
	)
	for _, c := range cases {
		ch := &discordgo.Channel{ID: "50", GuildID: guildID, Name: "relay", Type: discordgo.ChannelTypeGuildText, PermissionOverwrites: c.overwrite}
		lines, err := permissionLines(c.g, ch, &discordgo.Member{Roles: c.roles}, botID, time.Now())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(lines) != len(requiredPermissions) {
			t.Fatalf("%s: %d lines, want %d", c.name, len(lines), len(requiredPermissions))
		}
		for i, l := range lines {
			name := requiredPermissions[i].name
			if l.Check != "permission "+name {
				t.Errorf("%s: line %d checks %q", c.name, i, l.Check)
			}
			if failed := !l.OK; failed != (name == c.fails) {
				t.Errorf("%s: %s: %+v", c.name, name, l)
			} else if failed && (!strings.Contains(l.Says, name) || !strings.Contains(l.Says, c.where)) {
				t.Errorf("%s: the fix %q does not say %q", c.name, l.Says, c.where)
			}
		}
	}
}

// The invite integer is exactly the required permissions.
func TestInvitePermissions(t *testing.T) {
	var all int64
	for _, p := range requiredPermissions {
		all |= p.bit
	}
	if all != invitePermissions {
		t.Errorf("the required permissions are %d, the invite integer %d", all, invitePermissions)
	}
}

// A channel the bot may not view (403) shows it no overwrites: the roles
// tell whether View Channel is missing there or by an overwrite.
func TestHiddenChannelLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		role  int64
		where string
	}{
		{"the role lacks it", invitePermissions &^ discordgo.PermissionViewChannel, "no role of the bot grants View Channel: give it to the bot's role (relay)"},
		{"an overwrite denies it", invitePermissions, "the bot's roles grant View Channel, but channel 50's permission overwrites deny it"},
	} {
		g := &discordgo.Guild{ID: "10", Roles: []*discordgo.Role{{ID: "10", Name: "@everyone"}, {ID: "20", Name: "relay", Permissions: tc.role}}}
		l, err := hiddenChannelLine(g, "50", &discordgo.Member{Roles: []string{"20"}}, "30")
		if err != nil || l.OK || l.Check != "permission View Channel" || !strings.Contains(l.Says, tc.where) {
			t.Errorf("%s: %+v, %v; want a failure saying %q", tc.name, l, err, tc.where)
		}
	}
}

// A timed-out bot keeps View Channel and Read Message History only; the
// others fail, saying until when and what to do. A timeout past, or an
// administrator's, takes nothing.
func TestPermissionLinesOfATimedOutBot(t *testing.T) {
	const guildID, roleID, botID = "10", "20", "30"
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	until := now.Add(time.Hour)
	past := now.Add(-time.Hour)
	g := func(role int64) *discordgo.Guild {
		return &discordgo.Guild{ID: guildID, OwnerID: "99", Roles: []*discordgo.Role{{ID: guildID, Name: "@everyone"}, {ID: roleID, Name: "relay", Permissions: role}}}
	}
	ch := &discordgo.Channel{ID: "50", GuildID: guildID, Name: "relay", Type: discordgo.ChannelTypeGuildText}
	for _, c := range []struct {
		name  string
		g     *discordgo.Guild
		until *time.Time
		fails int
	}{
		{"timed out", g(invitePermissions), &until, 5},
		{"a timeout that ended", g(invitePermissions), &past, 0},
		{"an administrator timed out", g(discordgo.PermissionAdministrator), &until, 0},
	} {
		lines, err := permissionLines(c.g, ch, &discordgo.Member{Roles: []string{roleID}, CommunicationDisabledUntil: c.until}, botID, now)
		if err != nil {
			t.Fatal(err)
		}
		failed := 0
		for _, l := range lines {
			if l.OK {
				continue
			}
			failed++
			if !strings.Contains(l.Says, "timed out in this server until 2026-12-06T13:00:00Z") || l.Check == "permission View Channel" || l.Check == "permission Read Message History" {
				t.Errorf("%s: %+v", c.name, l)
			}
		}
		if failed != c.fails {
			t.Errorf("%s: %d lines failed, want %d: %+v", c.name, failed, c.fails, lines)
		}
	}
}
