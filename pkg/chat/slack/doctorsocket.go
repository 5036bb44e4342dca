package slack

import (
	"errors"
	"fmt"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/doctor"
)

// socketModeLine judges apps.connections.open's answer to the app-level
// token: the step before the websocket, which doctor leaves unopened (a
// connection would take events meant for a running daemon of the app).
func socketModeLine(err error) doctor.Line {
	const check = "socket mode"
	const newToken = "under Basic Information, App-Level Tokens, generate a token with connections:write and put its xapp- token where appToken points"
	if err == nil {
		return doctor.Pass(check, "apps.connections.open hands the app a socket")
	}
	var se slackapi.SlackErrorResponse
	if !errors.As(err, &se) {
		return doctor.Fail(check, fmt.Sprintf("could not call apps.connections.open: %v; check the network (and apiURL if set)", err))
	}
	switch {
	case terminalErrors[se.Err]:
		return doctor.Fail(check, fmt.Sprintf("Slack refused the app-level token (%s): %s", se.Err, newToken))
	case se.Err == "missing_scope":
		return doctor.Fail(check, "the app-level token lacks connections:write: "+newToken)
	}
	return doctor.Fail(check, fmt.Sprintf("apps.connections.open answered %s: turn on Socket Mode under Settings, Socket Mode, and check that appToken is the app's xapp- token with connections:write", se.Err))
}
