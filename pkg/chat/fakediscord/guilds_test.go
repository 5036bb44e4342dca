package fakediscord_test

import (
	"encoding/json"
	"testing"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// The quickstart's invite integer is exactly the seven permissions the
// fake's bot role grants, as discordgo numbers them.
func TestBotPermissionsAreTheQuickstarts(t *testing.T) {
	want := int64(discordgo.PermissionViewChannel | discordgo.PermissionSendMessages | discordgo.PermissionCreatePublicThreads |
		discordgo.PermissionSendMessagesInThreads | discordgo.PermissionManageThreads | discordgo.PermissionAddReactions |
		discordgo.PermissionReadMessageHistory)
	if want != 326417583168 {
		t.Fatalf("discordgo's seven = %d, the quickstart says 326417583168", want)
	}
	if fakediscord.BotPermissions != want {
		t.Fatalf("BotPermissions = %d, want discordgo's seven %d", fakediscord.BotPermissions, want)
	}
}

// application fetches GET /applications/@me as discordgo parses it.
func application(t *testing.T, s *discordgo.Session) *discordgo.Application {
	t.Helper()
	body, err := s.RequestWithBucketID("GET", discordgo.EndpointApplication("@me"), nil, discordgo.EndpointApplication("@me"))
	if err != nil {
		t.Fatalf("GET applications/@me: %v", err)
	}
	var app discordgo.Application
	if err := json.Unmarshal(body, &app); err != nil {
		t.Fatalf("decoding the application: %v", err)
	}
	return &app
}

// The application's ID and flags agree with READY's and the gateway's
// 4014: one switch, SetMessageContentIntent.
func TestApplicationThroughDiscordgo(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}})
	s := newSession(t, f, token)
	const contentLimited = 1 << 19
	if app := application(t, s); app.ID != fakediscord.ApplicationID(token) || app.Name == "" || app.Flags&contentLimited == 0 {
		t.Fatalf("application = %+v, want ID %s and GATEWAY_MESSAGE_CONTENT_LIMITED", app, fakediscord.ApplicationID(token))
	}
	f.SetMessageContentIntent(token, false)
	f.SetApplicationID(token, "42")
	if app := application(t, s); app.Flags&(1<<18|contentLimited) != 0 || app.ID != "42" {
		t.Fatalf("with the intent off and another application: %+v", app)
	}
}

// The guild, the bot's member and the channel parse in discordgo and give,
// by discordgo's own algorithm, exactly the seven permissions; one taken
// away is denied by the channel's overwrite for the bot's role.
func TestPermissionsThroughDiscordgo(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}})
	s := newSession(t, f, token)
	bot := fakediscord.BotUserID(token)
	perms := func() int64 {
		t.Helper()
		g, err := s.Guild(f.GuildID())
		if err != nil {
			t.Fatalf("Guild: %v", err)
		}
		if g.OwnerID == bot || len(g.Roles) != 2 || g.Roles[0].ID != g.ID || g.Roles[1].ID != fakediscord.BotRoleID(token) ||
			!g.Roles[1].Managed || g.Roles[1].Permissions != fakediscord.BotPermissions {
			t.Fatalf("guild = %+v, roles %+v", g, g.Roles)
		}
		m, err := s.GuildMember(f.GuildID(), bot)
		if err != nil || m.User.ID != bot || len(m.Roles) != 1 || m.Roles[0] != fakediscord.BotRoleID(token) {
			t.Fatalf("GuildMember = %+v, %v", m, err)
		}
		ch, err := s.Channel(channel)
		if err != nil {
			t.Fatalf("Channel: %v", err)
		}
		st := discordgo.NewState()
		if err := st.GuildAdd(g); err != nil {
			t.Fatal(err)
		}
		if err := st.ChannelAdd(ch); err != nil {
			t.Fatal(err)
		}
		if err := st.MemberAdd(m); err != nil {
			t.Fatal(err)
		}
		p, err := st.UserChannelPermissions(bot, channel)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := perms(); p&fakediscord.BotPermissions != fakediscord.BotPermissions {
		t.Fatalf("permissions %b lack some of %b", p, fakediscord.BotPermissions)
	}
	if ch, err := s.Channel(channel); err != nil || ch.GuildID != f.GuildID() || ch.Type != discordgo.ChannelTypeGuildText || ch.PermissionOverwrites == nil {
		t.Fatalf("Channel = %+v, %v", ch, err)
	}

	f.SetPermission(token, fakediscord.PermAddReactions, false)
	if p := perms(); p&fakediscord.BotPermissions != fakediscord.BotPermissions&^fakediscord.PermAddReactions {
		t.Fatalf("Add Reactions taken: permissions %b", p)
	}
	ch, err := s.Channel(channel)
	if err != nil || len(ch.PermissionOverwrites) != 1 {
		t.Fatalf("Channel = %+v, %v", ch, err)
	}
	if o := ch.PermissionOverwrites[0]; o.ID != fakediscord.BotRoleID(token) || o.Type != discordgo.PermissionOverwriteTypeRole || o.Deny != fakediscord.PermAddReactions {
		t.Fatalf("overwrite = %+v", o)
	}
	f.SetPermission(token, fakediscord.PermAddReactions, true)
	if ch, err := s.Channel(channel); err != nil || len(ch.PermissionOverwrites) != 0 {
		t.Fatalf("given back: Channel = %+v, %v", ch, err)
	}

	// Without View Channel the channel answers 403 Missing Access; an
	// unknown one is still 404.
	f.SetPermission(token, fakediscord.PermViewChannel, false)
	if _, err := s.Channel(channel); restStatus(err) != 403 || restCode(err) != 50001 {
		t.Fatalf("Channel without View Channel: %v", err)
	}
	f.SetChannelUnknown(channel, true)
	if _, err := s.Channel(channel); restStatus(err) != 404 || restCode(err) != 10003 {
		t.Fatalf("an unknown channel without View Channel: %v", err)
	}
}

// Manage Threads is one switch: taking it denies it on the role's channels
// and refuses locking a thread.
func TestManageThreadsGatesLocking(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}})
	s := newSession(t, f, token)
	th, err := s.ThreadStart(channel, "t", discordgo.ChannelTypeGuildPublicThread, 60)
	if err != nil {
		t.Fatal(err)
	}
	locked := true
	f.SetPermission(token, fakediscord.PermManageThreads, false)
	if _, err := s.ChannelEdit(th.ID, &discordgo.ChannelEdit{Locked: &locked}); restStatus(err) != 403 || restCode(err) != 50013 {
		t.Fatalf("locking without Manage Threads: %v", err)
	}
	f.SetPermission(token, fakediscord.PermManageThreads, true)
	if ch, err := s.Channel(channel); err != nil || len(ch.PermissionOverwrites) != 0 {
		t.Fatalf("SetPermission(true) left %+v, %v", ch, err)
	}
	if _, err := s.ChannelEdit(th.ID, &discordgo.ChannelEdit{Locked: &locked}); err != nil {
		t.Fatalf("locking with Manage Threads: %v", err)
	}
	f.SetPermission(token, fakediscord.PermManageThreads, false)
	if ch, err := s.Channel(channel); err != nil || len(ch.PermissionOverwrites) != 1 || ch.PermissionOverwrites[0].Deny != fakediscord.PermManageThreads {
		t.Fatalf("SetPermission(false): %+v, %v", ch, err)
	}
}

// Another guild, or a member nobody knows, is 404 with Discord's codes.
func TestUnknownGuildAndMember(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}})
	s := newSession(t, f, token)
	if _, err := s.Guild("123"); restStatus(err) != 404 || restCode(err) != 10004 {
		t.Fatalf("another guild: %v", err)
	}
	if _, err := s.GuildMember(f.GuildID(), user); restStatus(err) != 404 || restCode(err) != 10007 {
		t.Fatalf("a stranger: %v", err)
	}
}
