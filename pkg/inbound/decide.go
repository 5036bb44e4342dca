package inbound

import (
	"gjc.dev/reconciler/pkg/bus"
)

// decide says whether ev may land, and in which session: only a plain
// message by an authorized person in a session's thread does. The order
// of the checks sets which reason an event is counted under.
func decide(ev Event, authorized map[string]bool, sessionAt func(place string) (string, bool)) (string, Reason) {
	switch {
	case ev.Self:
		return "", FromSelf
	case ev.Kind == Edit:
		return "", EditIgnored
	case ev.Kind != Plain:
		return "", OtherKind
	case ev.Bot:
		return "", FromBot
	}
	session, ok := "", false
	if ev.Place != "" {
		session, ok = sessionAt(ev.Place)
	}
	switch {
	case !ok:
		return "", NotSession
	case !authorized[ev.User]:
		return "", Unauthorized
	}
	m := bus.InboxMessage{ID: ev.ID, Session: session, User: ev.User, Text: ev.Text, TS: bus.InboxTime(ev.Time)}
	if ev.Time.UnixMilli() <= 0 || len(m.Validate()) > 0 {
		return "", Unusable
	}
	return session, ""
}
