package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/doctor"
	"gjc.dev/reconciler/pkg/spec"
)

// Doctor checks cfg against Slack with reads only (chat.Provider): the bot
// token (auth.test), the channel (conversations.info), the token's scopes
// against those the relay uses (auth.test's X-OAuth-Scopes, judged for the
// channel's kind, so they come after it), Socket Mode
// (apps.connections.open, and the socket's hello for the app's connection
// count, the socket closed at once), then the clock.
// With the bot token refused nothing else can be asked of it; the app-level
// token is still checked.
func (provider) Doctor(ctx context.Context, cfg *spec.Config) []doctor.Line {
	s := cfg.Slack
	timed := &doctor.Timed{}
	options := []slackapi.Option{
		slackapi.OptionHTTPClient(&http.Client{Timeout: doctor.RequestTimeout, Transport: timed}),
		slackapi.OptionAppLevelToken(s.AppToken.Reveal()),
	}
	if s.APIURL != "" {
		options = append(options, slackapi.OptionAPIURL(apiBase(s.APIURL)))
	}
	api := slackapi.New(s.BotToken.Reveal(), options...)
	secrets := []string{s.BotToken.Reveal(), s.AppToken.Reveal()}

	var lines []doctor.Line
	me, err := api.AuthTestContext(ctx)
	if err != nil {
		lines = append(lines, botTokenLine(scrub(err, secrets...)))
	} else {
		lines = append(lines, workspaceLine(me, s.WorkspaceID))
		ch, err := api.GetConversationInfoContext(ctx, &slackapi.GetConversationInfoInput{ChannelID: s.ChannelID})
		lines = append(lines, channelAndScopeLines(s.ChannelID, me, ch, scrub(err, secrets...))...)
	}
	_, url, err := api.StartSocketModeContext(ctx)
	var connections int
	var helloErr error
	if err == nil {
		connections, helloErr = helloConnections(ctx, url)
	}
	lines = append(lines, socketModeLine(scrub(err, secrets...), connections, scrub(helloErr, append(secrets, url)...)))
	return append(lines, timed.Clock("Slack")...)
}

// channelAndScopeLines are the channel's line, then a line per scope the
// relay uses, judged for the channel's kind.
func channelAndScopeLines(id string, me *slackapi.AuthTestResponse, ch *slackapi.Channel, infoErr error) []doctor.Line {
	granted, ok := grantedScopes(me.Header)
	if !ok {
		scopes := doctor.Fail("scopes", "Slack's answer to auth.test carried no X-OAuth-Scopes header to read the scopes from; if apiURL points at a proxy, let that header through")
		return append(channelLines(id, me.User, ch, infoErr, false), scopes)
	}
	kind, known := channelKindFor(ch, infoErr, granted)
	scopes := scopeLines(granted, kind, known)
	return append(channelLines(id, me.User, ch, infoErr, doctor.Failed(scopes) > 0), scopes...)
}

// workspaceLine is the bot token check once auth.test answered: the token
// must be for the workspace workspaceId names, when it names one.
func workspaceLine(me *slackapi.AuthTestResponse, workspaceID string) doctor.Line {
	const check = "bot token"
	found := fmt.Sprintf("bot %s (%s) in workspace %s (%s)", me.User, me.UserID, me.Team, me.TeamID)
	if me.BotID == "" {
		// A user token passes auth.test too, and would post as that person.
		return doctor.Fail(check, fmt.Sprintf("the token is user %s's (%s), not a bot's: put the app's Bot User OAuth Token (xoxb-) where botToken points", me.User, me.UserID))
	}
	if workspaceID != "" && me.TeamID != workspaceID {
		return doctor.Fail(check, fmt.Sprintf("the token is the %s, not in workspaceId %s: put the bot token of the app installed in %s where botToken points, or set workspaceId to %s", found, workspaceID, workspaceID, me.TeamID))
	}
	return doctor.Pass(check, found)
}

// botTokenLine is the bot token check that failed with err.
func botTokenLine(err error) doctor.Line {
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) && terminalErrors[se.Err] {
		return doctor.Fail("bot token", fmt.Sprintf("Slack refused the bot token (%s): reinstall the app to the workspace and put its xoxb- token where botToken points", se.Err))
	}
	return doctor.Fail("bot token", fmt.Sprintf("could not call auth.test: %v; check the network (and apiURL if set)", err))
}
