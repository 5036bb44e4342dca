package slack

import (
	"errors"
	"fmt"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/doctor"
)

// channelLines judge conversations.info's answer about channel id, as the
// relay's own check at start does (CheckChannel): found, not archived, and
// the bot a member. bot is the bot's name, for the /invite to type.
// missing_scope is left to the scope lines when one of them fails
// (scopeExplains): the line that says what to add is the one to show, once.
func channelLines(id, bot string, ch *slackapi.Channel, err error, scopeExplains bool) []doctor.Line {
	const check = "channel"
	if err == nil {
		name := fmt.Sprintf("#%s (%s)", ch.Name, id)
		switch {
		case ch.IsArchived:
			return []doctor.Line{doctor.Fail(check, name+" is archived: unarchive it, or point channelId at another channel")}
		case !ch.IsMember && !ch.IsIM && !ch.IsMpIM: // a DM carries no is_member
			return []doctor.Line{doctor.Fail(check, fmt.Sprintf("the bot is not in %s: type /invite @%s in the channel", name, bot))}
		}
		return []doctor.Line{doctor.Pass(check, fmt.Sprintf("%s, a %s, with the bot in it", name, kindOf(ch)))}
	}
	var se slackapi.SlackErrorResponse
	if !errors.As(err, &se) {
		return []doctor.Line{doctor.Fail(check, fmt.Sprintf("could not call conversations.info: %v; check the network (and apiURL if set)", err))}
	}
	switch se.Err {
	case "channel_not_found":
		return []doctor.Line{doctor.Fail(check, fmt.Sprintf("Slack finds no channel %s that the bot can see: check channelId (the ID at the foot of the channel's details); a private channel shows only to a bot in it: type /invite @%s there", id, bot))}
	case "missing_scope":
		if scopeExplains {
			return nil
		}
		return []doctor.Line{doctor.Fail(check, fmt.Sprintf("conversations.info answered missing_scope (needed: %s): add it under OAuth & Permissions, Bot Token Scopes, then reinstall the app to the workspace", se.Needed))}
	}
	return []doctor.Line{doctor.Fail(check, fmt.Sprintf("conversations.info answered %s for %s", se.Err, id))}
}
