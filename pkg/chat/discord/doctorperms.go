package discord

import (
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/doctor"
)

// requiredPermissions are what the relay does in the parent channel, in
// the order doctor reports them: see it, post a session's root, open its
// thread, post in it, archive and lock it when the session closes, put 👀
// on a reply it took, and read history to find a post after a crash.
var requiredPermissions = []struct {
	name string
	bit  int64
}{
	{"View Channel", discordgo.PermissionViewChannel},
	{"Send Messages", discordgo.PermissionSendMessages},
	{"Create Public Threads", discordgo.PermissionCreatePublicThreads},
	{"Send Messages in Threads", discordgo.PermissionSendMessagesInThreads},
	{"Manage Threads", discordgo.PermissionManageThreads},
	{"Add Reactions", discordgo.PermissionAddReactions},
	{"Read Message History", discordgo.PermissionReadMessageHistory},
}

// invitePermissions is the quickstart's permissions integer: the required
// ones together.
const invitePermissions = 326417583168

// permissionLines is a line per required permission of the bot (a member
// of guild g) in channel ch, computed by discordgo's own algorithm from
// the guild's roles and the channel's overwrites. A permission the roles
// grant but an overwrite takes away is blamed on the overwrite, so the
// fix says where to grant it.
//
// A bot timed out at now (a moderator's "Timeout") keeps only View Channel
// and Read Message History whatever its roles say, unless it is the owner
// or an administrator; discordgo's algorithm does not know timeouts.
func permissionLines(g *discordgo.Guild, ch *discordgo.Channel, m *discordgo.Member, botID string, now time.Time) ([]doctor.Line, error) {
	final, err := channelPermissions(g, ch, m, botID)
	if err != nil {
		return nil, err
	}
	timedOut := m.CommunicationDisabledUntil != nil && m.CommunicationDisabledUntil.After(now) &&
		botID != g.OwnerID && final&discordgo.PermissionAdministrator == 0
	const keptInTimeout = discordgo.PermissionViewChannel | discordgo.PermissionReadMessageHistory
	bare := *ch
	bare.PermissionOverwrites = nil
	base, err := channelPermissions(g, &bare, m, botID)
	if err != nil {
		return nil, err
	}
	lines := make([]doctor.Line, 0, len(requiredPermissions))
	for _, p := range requiredPermissions {
		check := "permission " + p.name
		switch {
		case timedOut && final&p.bit != 0 && p.bit&keptInTimeout == 0:
			lines = append(lines, doctor.Fail(check, fmt.Sprintf(
				"the bot is timed out in this server until %s, which takes %s away: remove the timeout (right-click the bot > Remove Timeout)",
				m.CommunicationDisabledUntil.UTC().Format(time.RFC3339), p.name)))
		case final&p.bit != 0:
			lines = append(lines, doctor.Pass(check, "granted in #"+ch.Name))
		case base&p.bit == 0:
			lines = append(lines, doctor.Fail(check, roleFix(g, m, p.name)))
		default:
			lines = append(lines, doctor.Fail(check, fmt.Sprintf(
				"channel #%s's permission overwrites deny %s to %s: allow it there under Edit Channel > Permissions",
				ch.Name, p.name, denying(g, ch, m.Roles, botID, p.bit))))
		}
	}
	return lines, nil
}

// hiddenChannelLine is the View Channel line for a channel the bot may
// not view (403): its overwrites are not shown to the bot, so the roles
// alone tell where View Channel is missing.
func hiddenChannelLine(g *discordgo.Guild, channelID string, m *discordgo.Member, botID string) (doctor.Line, error) {
	const name = "View Channel"
	base, err := channelPermissions(g, &discordgo.Channel{ID: channelID, GuildID: g.ID}, m, botID)
	if err != nil {
		return doctor.Line{}, err
	}
	if base&discordgo.PermissionViewChannel == 0 {
		return doctor.Fail("permission "+name, roleFix(g, m, name)), nil
	}
	return doctor.Fail("permission "+name, fmt.Sprintf(
		"the bot's roles grant %s, but channel %s's permission overwrites deny it (or the channel is in another server than guildId): allow it for the bot's role (%s) under Edit Channel > Permissions",
		name, channelID, roleNames(g, m.Roles))), nil
}

// roleFix is what to do about a permission no role of the bot grants.
func roleFix(g *discordgo.Guild, m *discordgo.Member, name string) string {
	return fmt.Sprintf("no role of the bot grants %s: give it to the bot's role (%s) under Server Settings > Roles, or invite the bot again with the permissions integer %d",
		name, roleNames(g, m.Roles), invitePermissions)
}

// channelPermissions runs discordgo's algorithm on a state of its own
// holding copies of g, ch and m, so theirs are left as they were. For the
// owner and an administrator Discord grants everything, overwrites or
// not; discordgo's PermissionAll (v0.29.0) predates the thread
// permissions, so they are granted here.
func channelPermissions(g *discordgo.Guild, ch *discordgo.Channel, m *discordgo.Member, botID string) (int64, error) {
	perms, err := discordgoPermissions(g, ch, m, botID)
	if err == nil && perms&discordgo.PermissionAdministrator != 0 {
		perms = ^int64(0)
	}
	return perms, err
}

// discordgoPermissions is State.UserChannelPermissions on g, ch and m.
func discordgoPermissions(g *discordgo.Guild, ch *discordgo.Channel, m *discordgo.Member, botID string) (int64, error) {
	st := discordgo.NewState()
	guild := &discordgo.Guild{ID: g.ID, OwnerID: g.OwnerID, Roles: g.Roles}
	channel := *ch
	channel.GuildID = g.ID
	member := *m
	member.GuildID, member.User = g.ID, &discordgo.User{ID: botID}
	for _, err := range []error{st.GuildAdd(guild), st.ChannelAdd(&channel), st.MemberAdd(&member)} {
		if err != nil {
			return 0, fmt.Errorf("computing the bot's permissions: %w", err)
		}
	}
	return st.UserChannelPermissions(botID, ch.ID)
}

// roleNames names the member's roles, for where to grant a permission.
func roleNames(g *discordgo.Guild, ids []string) string {
	var names []string
	for _, r := range g.Roles {
		for _, id := range ids {
			if r.ID == id {
				names = append(names, r.Name)
			}
		}
	}
	if len(names) == 0 {
		return "it has none but @everyone"
	}
	return strings.Join(names, ", ")
}

// denying names whose overwrites in ch deny bit: @everyone, one of the
// bot's roles, or the bot itself.
func denying(g *discordgo.Guild, ch *discordgo.Channel, roles []string, botID string, bit int64) string {
	var who []string
	for _, o := range ch.PermissionOverwrites {
		if o.Deny&bit == 0 {
			continue
		}
		switch {
		case o.Type == discordgo.PermissionOverwriteTypeMember && o.ID == botID:
			who = append(who, "the bot itself")
		case o.Type == discordgo.PermissionOverwriteTypeRole && o.ID == g.ID:
			who = append(who, "@everyone")
		case o.Type == discordgo.PermissionOverwriteTypeRole:
			for _, id := range roles {
				if id == o.ID {
					who = append(who, "the role "+roleNames(g, []string{id}))
				}
			}
		}
	}
	return strings.Join(who, " and ")
}
