package ownership

import (
	"encoding/json"
	"fmt"
	"slices"
)

// relayKeys are the keys a relay object may hold. Unlike the record's own
// keys, an unknown one makes it malformed: only this project writes it,
// and a key it does not know is a writer it does not know.
var relayKeys = []string{
	"pending", "oldestPendingAt", "failed", "blocked", "rateLimitedUntil",
	"lastPostAt", "posted", "postSeconds", "rateLimitWaits", "filtered",
	"inboxLanded", "inboxDuplicates", "inboxIgnored", "lastInboxAt", "inboxIgnoredBy", "inboxWaiting",
	"inboxMissed", "inboxLagMs", "asksOpen", "asksDecided", "asksExpired", "asksRefused",
}

// blockReasons are the reasons a relay may be blocked for.
var blockReasons = []string{ReasonRelayBlocked, ReasonChannelUnavailable}

// relay is the optional relay object (RelayState): counts are
// safe integers >= 0 and always present, times safe integers >= 0 (unix
// ms) when present, postSeconds a finite number >= 0, blocked an object of
// exactly a known reason and a message of at most MaxDetail bytes. The
// message is read as one line, as the other free text is.
func (f *fields) relay() *RelayState {
	raw, ok := f.obj.get("relay")
	if !ok || f.err != nil {
		return nil
	}
	if jsType(raw) != "object" {
		f.fail("relay", "must be an object when present, got %s", shown(raw))
		return nil
	}
	obj, err := parseObject(raw)
	if err != nil {
		f.fail("relay", "%v", err)
		return nil
	}
	for _, m := range obj {
		if !slices.Contains(relayKeys, string(m.key)) {
			f.fail("relay", "unknown key %q (known: %q)", m.key, relayKeys)
			return nil
		}
	}
	r := relayFields{fields: f, obj: obj}
	st := &RelayState{
		Pending:          r.count("pending"),
		OldestPendingAt:  r.time("oldestPendingAt"),
		Failed:           r.count("failed"),
		Blocked:          r.blocked(),
		RateLimitedUntil: r.time("rateLimitedUntil"),
		LastPostAt:       r.time("lastPostAt"),
		Posted:           r.count("posted"),
		PostSeconds:      r.seconds("postSeconds"),
		RateLimitWaits:   r.count("rateLimitWaits"),
		// Optional: written only once a message was left out, or
		// something came back.
		Filtered:        r.optionalCount("filtered"),
		InboxLanded:     r.optionalCount("inboxLanded"),
		InboxDuplicates: r.optionalCount("inboxDuplicates"),
		InboxIgnored:    r.optionalCount("inboxIgnored"),
		LastInboxAt:     r.time("lastInboxAt"),
		InboxIgnoredBy:  r.ignoredBy(),
		InboxWaiting:    r.optionalCount("inboxWaiting"),
		InboxMissed:     r.optionalCount("inboxMissed"),
		InboxLagMs:      r.time("inboxLagMs"),
		AsksOpen:        r.optionalCount("asksOpen"),
		AsksDecided:     r.optionalCount("asksDecided"),
		AsksExpired:     r.optionalCount("asksExpired"),
		AsksRefused:     r.optionalCount("asksRefused"),
	}
	if f.err != nil {
		return nil
	}
	return st
}

// relayFields judges the members of the relay object; failures go to the
// record's fields, named "relay.<key>".
type relayFields struct {
	*fields
	obj object
}

func (r relayFields) nonNegativeInt(key string, required bool) int64 {
	raw, ok := r.obj.get(key)
	if r.err != nil {
		return 0
	}
	if !ok {
		if required {
			r.fail("relay."+key, "missing")
		}
		return 0
	}
	v, ok := jsNumber(raw)
	if !ok || !isSafeInteger(v) || v < 0 {
		r.fail("relay."+key, "must be a safe integer >= 0, got %s", shown(raw))
		return 0
	}
	return int64(v) // -0 becomes 0
}

func (r relayFields) count(key string) int64 { return r.nonNegativeInt(key, true) }
func (r relayFields) time(key string) int64  { return r.nonNegativeInt(key, false) }

func (r relayFields) optionalCount(key string) int64 { return r.nonNegativeInt(key, false) }

func (r relayFields) seconds(key string) float64 {
	raw, ok := r.obj.get(key)
	if r.err != nil {
		return 0
	}
	if !ok {
		r.fail("relay."+key, "missing")
		return 0
	}
	v, ok := jsNumber(raw)
	if !ok || !isFinite(v) || v < 0 {
		r.fail("relay."+key, "must be a finite number >= 0, got %s", shown(raw))
		return 0
	}
	if v == 0 {
		v = 0 // -0
	}
	return v
}

func (r relayFields) blocked() *RelayBlock {
	raw, ok := r.obj.get("blocked")
	if !ok || r.err != nil {
		return nil
	}
	fail := func(format string, args ...any) *RelayBlock {
		r.fail("relay.blocked", "must be {reason, message} with reason one of %q and a message of at most %d bytes: %s",
			blockReasons, MaxDetail, fmt.Sprintf(format, args...))
		return nil
	}
	if jsType(raw) != "object" {
		return fail("got %s", shown(raw))
	}
	obj, err := parseObject(raw)
	if err != nil {
		return fail("%v", err)
	}
	var reason, message json.RawMessage
	for _, m := range obj {
		switch string(m.key) {
		case "reason":
			reason = m.raw
		case "message":
			message = m.raw
		default:
			return fail("unknown key %q", m.key)
		}
	}
	if reason == nil || message == nil {
		return fail("reason or message missing")
	}
	rs, rok := jsString(reason)
	ms, mok := jsString(message)
	switch {
	case !rok || !slices.Contains(blockReasons, rs):
		return fail("reason %s", shown(reason))
	case !mok:
		return fail("message %s", shown(message))
	case len(ms) > MaxDetail:
		return fail("message of %d bytes", len(ms))
	}
	return &RelayBlock{Reason: rs, Message: OneLine(ms)}
}

// ignoredBy is the optional inboxIgnoredBy object: each key one of the
// inbound reasons (parseObject refuses a key twice), each value a safe integer >= 0.
func (r relayFields) ignoredBy() map[string]int64 {
	raw, ok := r.obj.get("inboxIgnoredBy")
	if !ok || r.err != nil {
		return nil
	}
	fail := func(format string, args ...any) map[string]int64 {
		r.fail("relay.inboxIgnoredBy", "must be an object of counts by reason (one of %q): %s", InboxIgnoredReasons, fmt.Sprintf(format, args...))
		return nil
	}
	if jsType(raw) != "object" {
		return fail("got %s", shown(raw))
	}
	obj, err := parseObject(raw)
	if err != nil {
		return fail("%v", err)
	}
	out := make(map[string]int64, len(obj))
	for _, m := range obj {
		k := string(m.key)
		if !slices.Contains(InboxIgnoredReasons, k) {
			return fail("unknown reason %q", k)
		}
		v, ok := jsNumber(m.raw)
		if !ok || !isSafeInteger(v) || v < 0 {
			return fail("%s is %s", k, shown(m.raw))
		}
		out[k] = int64(v)
	}
	return out
}
