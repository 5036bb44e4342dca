package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/doctor"
	"gjc.dev/reconciler/pkg/spec"
)

// doctorTimeout bounds each request doctor makes.
const doctorTimeout = 10 * time.Second

// Doctor checks cfg against Slack without posting anything (chat.Provider).
func (provider) Doctor(ctx context.Context, cfg *spec.Config) []doctor.Line {
	s := cfg.Slack
	timed := &doctor.Timed{}
	options := []slackapi.Option{slackapi.OptionHTTPClient(&http.Client{Timeout: doctorTimeout, Transport: timed})}
	if s.APIURL != "" {
		options = append(options, slackapi.OptionAPIURL(apiBase(s.APIURL)))
	}
	api := slackapi.New(s.BotToken.Reveal(), options...)
	me, err := api.AuthTestContext(ctx)
	if err != nil {
		return []doctor.Line{botTokenLine(err), timed.Clock("Slack")}
	}
	lines := []doctor.Line{doctor.Pass("bot token", fmt.Sprintf("bot %s (%s) in %s (%s)", me.User, me.UserID, me.Team, me.TeamID))}
	return append(lines, timed.Clock("Slack"))
}

// botTokenLine is the bot token check that failed with err.
func botTokenLine(err error) doctor.Line {
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) && terminalErrors[se.Err] {
		return doctor.Fail("bot token", fmt.Sprintf("Slack refused the bot token (%s): reinstall the app to the workspace and put its xoxb- token where botToken points", se.Err))
	}
	return doctor.Fail("bot token", fmt.Sprintf("could not call auth.test: %v; check the network (and apiURL if set)", err))
}
