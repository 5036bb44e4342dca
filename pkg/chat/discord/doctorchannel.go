package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/internal/rewrite"
	"gjc.dev/reconciler/pkg/doctor"
	"gjc.dev/reconciler/pkg/spec"
)

// channelLines are the channel check (the parent channel exists, is in
// guildId and can hold threads) and, when it passes, a line per required
// permission of the bot there. Discord answers 403 for a channel the bot
// may not view, and no longer lists it among the server's channels, so
// then the channel is known to exist and View Channel fails alone: the
// other permissions depend on overwrites the bot is not shown.
func channelLines(ctx context.Context, s *discordgo.Session, d *spec.DiscordConfig, botID string) []doctor.Line {
	opt := discordgo.WithContext(ctx)
	guild, gErr := s.Guild(d.GuildID, opt)
	ch, err := s.Channel(d.ParentChannelID, opt)
	hidden := restStatus(err) == http.StatusForbidden && gErr == nil
	if err != nil && !hidden {
		return []doctor.Line{doctor.Fail("channel", channelFix(err, gErr, d))}
	}
	line, ok := doctor.Pass("channel", fmt.Sprintf("%s exists, but the bot may not view it (403): its server and type are checked once it may", d.ParentChannelID)), true
	if !hidden {
		line, ok = channelLine(ch, d)
	}
	if !ok {
		return []doctor.Line{line}
	}
	if gErr != nil {
		return []doctor.Line{line, doctor.Fail("permissions", fmt.Sprintf(
			"could not fetch server %s to compute the bot's permissions: %v; run doctor again", d.GuildID, rewrite.DialledErr(gErr, d.APIURL)))}
	}
	m, err := s.GuildMember(d.GuildID, botID, opt)
	if err != nil {
		return []doctor.Line{line, doctor.Fail("permissions", fmt.Sprintf(
			"could not fetch the bot's roles in server %s: %v; run doctor again", d.GuildID, rewrite.DialledErr(err, d.APIURL)))}
	}
	var perms []doctor.Line
	if hidden {
		var view doctor.Line
		view, err = hiddenChannelLine(guild, d.ParentChannelID, m, botID)
		perms = []doctor.Line{view}
	} else {
		perms, err = permissionLines(guild, ch, m, botID, time.Now())
	}
	if err != nil {
		return []doctor.Line{line, doctor.Fail("permissions", err.Error())}
	}
	return append([]doctor.Line{line}, perms...)
}

// channelLine judges a channel the bot could fetch.
func channelLine(ch *discordgo.Channel, d *spec.DiscordConfig) (doctor.Line, bool) {
	const check = "channel"
	if ch.GuildID != d.GuildID {
		return doctor.Fail(check, fmt.Sprintf("channel %s (#%s) is in server %s, not guildId %s: correct guildId or parentChannelId",
			ch.ID, ch.Name, ch.GuildID, d.GuildID)), false
	}
	if why := channelTypeProblem(ch.Type); why != "" {
		return doctor.Fail(check, fmt.Sprintf("channel %s (#%s) %s: parentChannelId must be a text channel the bot can start threads in",
			ch.ID, ch.Name, why)), false
	}
	return doctor.Pass(check, fmt.Sprintf("#%s (%s) in server %s", ch.Name, ch.ID, d.GuildID)), true
}

// channelFix is what to do when the channel could not be fetched; gErr
// is how fetching its server went, which tells a wrong id from a bot
// that is not in the server.
func channelFix(err, gErr error, d *spec.DiscordConfig) string {
	switch {
	case restStatus(err) == http.StatusNotFound:
		return fmt.Sprintf("Discord has no channel %s (404): copy the parent channel's id again (Developer Mode, right-click the channel, Copy Channel ID) into parentChannelId", d.ParentChannelID)
	case restStatus(err) == http.StatusForbidden:
		return fmt.Sprintf("the bot is not in server %s (403 for the channel, %v for the server): invite it with the bot scope and the permissions integer %d (the quickstart's invite link), or correct guildId",
			d.GuildID, rewrite.DialledErr(gErr, d.APIURL), invitePermissions)
	}
	return fmt.Sprintf("could not fetch channel %s: %v; check the network (and apiURL if set)", d.ParentChannelID, rewrite.DialledErr(err, d.APIURL))
}

// restStatus is the HTTP status of a REST error, or 0.
func restStatus(err error) int {
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil {
		return re.Response.StatusCode
	}
	return 0
}
