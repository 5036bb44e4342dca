package slack

import (
	"context"
	"errors"
	"fmt"

	"github.com/gorilla/websocket"
	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/doctor"
)

// helloConnections opens the socket apps.connections.open handed out
// just long enough to read Slack's hello, and returns its
// num_connections: the app's open Socket Mode connections, this one
// included. The socket acks nothing and is closed at once: an envelope
// Slack may hand it in that instant goes unacked, and Slack delivers it
// again to the app's other connection (a running daemon's).
func helloConnections(ctx context.Context, url string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, doctor.RequestTimeout)
	defer cancel()
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, url, nil)
	if err != nil {
		return 0, fmt.Errorf("opening the socket: %w", err)
	}
	defer ws.Close()
	stop := context.AfterFunc(ctx, func() { _ = ws.Close() })
	defer stop()
	var hello socketmode.Request
	if err := ws.ReadJSON(&hello); err != nil {
		return 0, fmt.Errorf("reading the socket's hello: %w", err)
	}
	if hello.Type != socketmode.RequestTypeHello {
		return 0, fmt.Errorf("the socket's first message is %q, not hello", hello.Type)
	}
	return hello.NumConnections, nil
}

// socketModeLine judges apps.connections.open's answer to the app-level
// token (err), and the hello of the socket it handed out (connections,
// the app's open connections the hello counts, doctor's own included; or
// helloErr). One other connection is a running daemon's; more is
// another consumer of the token, and Slack splits events between them.
func socketModeLine(err error, connections int, helloErr error) doctor.Line {
	const check = "socket mode"
	const newToken = "under Basic Information, App-Level Tokens, generate a token with connections:write and put its xapp- token where appToken points"
	if err == nil {
		others := connections - 1
		switch {
		case helloErr != nil:
			return doctor.Fail(check, fmt.Sprintf("apps.connections.open hands the app a socket, but %v; check the network (a proxy must let websockets through)", helloErr))
		case others <= 0:
			return doctor.Pass(check, "apps.connections.open hands the app a socket; no other Socket Mode connection of the app is open")
		case others == 1:
			return doctor.Pass(check, "apps.connections.open hands the app a socket; 1 other Socket Mode connection of the app is open (a running daemon's)")
		}
		return doctor.Fail(check, fmt.Sprintf("Slack counts %d other Socket Mode connections of the app (TokenInUse): Slack splits events between them, so a daemon loses replies to the others; stop every consumer of the app token but the daemon, or give each its own app", others))
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
