package discord

import (
	"errors"

	"github.com/gorilla/websocket"

	"gjc.dev/reconciler/pkg/daemonproto"
)

// next is what a transport does after its gateway connection ended.
type next int

const (
	// resume: reconnect and RESUME the session (no session start spent).
	resume next = iota
	// identify: the session is over; reconnect and IDENTIFY, through the
	// budget check like any IDENTIFY.
	identify
	// terminal: reconnecting cannot succeed.
	terminal
)

// Close codes after which reconnecting cannot succeed.
var terminalCodes = map[int]string{
	4004: daemonproto.ReasonInvalidCredentials, // authentication failed
	4010: daemonproto.ReasonGatewayRefused,     // invalid shard
	4011: daemonproto.ReasonGatewayRefused,     // sharding required
	4012: daemonproto.ReasonGatewayRefused,     // invalid API version
	4013: daemonproto.ReasonDisallowedIntents,  // invalid intents
	4014: daemonproto.ReasonDisallowedIntents,  // disallowed intents
}

// Close codes after which Discord will not resume the session.
var sessionOverCodes = map[int]bool{
	4007: true, // invalid seq
	4009: true, // session timed out
}

// afterEnd decides, from why a connection ended, what comes next:
// Discord's op 9 says whether the session survives; its close codes
// (gateway documentation, "Gateway Close Event Codes") say which are
// terminal and which end the session; anything else (a network
// failure, op 7 RECONNECT, a heartbeat not ACKed) leaves the session
// resumable.
func afterEnd(err error) (next, string) {
	if is, ok := errors.AsType[*invalidSessionError](err); ok {
		if is.resumable {
			return resume, ""
		}
		return identify, ""
	}
	if ce, ok := errors.AsType[*websocket.CloseError](err); ok {
		if reason, ok := terminalCodes[ce.Code]; ok {
			return terminal, reason
		}
		if sessionOverCodes[ce.Code] {
			return identify, ""
		}
	}
	return resume, ""
}
