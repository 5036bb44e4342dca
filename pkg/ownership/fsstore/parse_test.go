package fsstore

import (
	"errors"
	"gjc.dev/reconciler/pkg/ownership"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// jsonObj is a record as ordered raw members, to build exact variants.
type jsonObj []struct{ k, v string }

func recordObj(pid int, incarnation string) jsonObj {
	return jsonObj{
		{"version", "1"}, {"kind", `"discord"`}, {"pid", strconv.Itoa(pid)},
		{"ownerId", strconv.Quote(testOwnerID)}, {"identity", strconv.Quote(testIdentity)},
		{"incarnation", strconv.Quote(incarnation)}, {"startedAt", "1764450000000"},
		{"heartbeatAt", "1764450005000"}, {"transportHealthy", "true"}, {"generation", "7"},
	}
}

func (o jsonObj) with(k, v string) jsonObj {
	out := append(jsonObj(nil), o...)
	for i := range out {
		if out[i].k == k {
			out[i].v = v
			return out
		}
	}
	return append(out, struct{ k, v string }{k, v})
}

func (o jsonObj) without(k string) jsonObj {
	var out jsonObj
	for _, m := range o {
		if m.k != k {
			out = append(out, m)
		}
	}
	return out
}

func (o jsonObj) bytes() []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(m.k) + ":" + m.v)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

type recordCase struct {
	name  string
	data  []byte
	field string // the field the error must name; "" for the file as a whole
	// stricter: the reference accepts this record; we refuse it on
	// purpose (see ParseState).
	stricter bool
}

// malformedRecords is the reference's malformed-field matrix, plus this
// project's stricter rules, for a record naming pid/incarnation.
func malformedRecords(pid int, incarnation string) []recordCase {
	r := recordObj(pid, incarnation)
	legacy := r.without("generation").with("incarnation", `"unavailable"`)
	c := func(name, field string, o jsonObj) recordCase {
		return recordCase{name: name, data: o.bytes(), field: field}
	}
	strict := func(rc recordCase) recordCase { rc.stricter = true; return rc }
	cases := []recordCase{
		c("version missing", "version", r.without("version")),
		c("version 2", "version", r.with("version", "2")),
		c("version string", "version", r.with("version", `"1"`)),
		c("version null", "version", r.with("version", "null")),
		c("kind missing", "kind", r.without("kind")),
		c("kind unknown", "kind", r.with("kind", `"telegram"`)),
		c("kind empty", "kind", r.with("kind", `""`)),
		c("kind number", "kind", r.with("kind", "1")),
		c("pid missing", "pid", r.without("pid")),
		c("pid 0", "pid", r.with("pid", "0")),
		c("pid -0", "pid", r.with("pid", "-0")),
		c("pid negative", "pid", r.with("pid", "-"+strconv.Itoa(pid))),
		c("pid unsafe 2^53", "pid", r.with("pid", "9007199254740992")),
		c("pid unsafe rounds to 2^53", "pid", r.with("pid", "9007199254740993")),
		c("pid huge", "pid", r.with("pid", "1e400")),
		c("pid fractional", "pid", r.with("pid", strconv.Itoa(pid)+".5")),
		c("pid string", "pid", r.with("pid", strconv.Quote(strconv.Itoa(pid)))),
		c("pid null", "pid", r.with("pid", "null")),
		c("pid boolean", "pid", r.with("pid", "true")),
		c("ownerId empty", "ownerId", r.with("ownerId", `""`)),
		c("ownerId missing", "ownerId", r.without("ownerId")),
		c("ownerId number", "ownerId", r.with("ownerId", "4100")),
		c("identity empty", "identity", r.with("identity", `""`)),
		c("identity missing", "identity", r.without("identity")),
		c("identity null", "identity", r.with("identity", "null")),
		c("incarnation missing", "incarnation", r.without("incarnation")),
		c("incarnation unavailable with generation", "incarnation", r.with("incarnation", `"unavailable"`)),
		c("incarnation unavailable with extra key", "incarnation", legacy.with("extra", "1")),
		c("incarnation garbage", "incarnation", r.with("incarnation", `"linux:abc"`)),
		c("incarnation leading zero", "incarnation", r.with("incarnation", `"linux:0123"`)),
		c("incarnation empty", "incarnation", r.with("incarnation", `""`)),
		c("incarnation number", "incarnation", r.with("incarnation", "98231")),
		c("startedAt string", "startedAt", r.with("startedAt", `"1764450000000"`)),
		c("startedAt missing", "startedAt", r.without("startedAt")),
		c("startedAt null", "startedAt", r.with("startedAt", "null")),
		c("startedAt infinite", "startedAt", r.with("startedAt", "1e400")),
		c("heartbeatAt NaN string", "heartbeatAt", r.with("heartbeatAt", `"NaN"`)),
		c("heartbeatAt missing", "heartbeatAt", r.without("heartbeatAt")),
		c("heartbeatAt null (JSON.stringify(NaN))", "heartbeatAt", r.with("heartbeatAt", "null")),
		c("heartbeatAt -Infinity", "heartbeatAt", r.with("heartbeatAt", "-1e999")),
		c("transportHealthy string", "transportHealthy", r.with("transportHealthy", `"true"`)),
		c("transportHealthy number", "transportHealthy", r.with("transportHealthy", "1")),
		c("transportHealthy missing", "transportHealthy", r.without("transportHealthy")),
		c("generation null", "generation", r.with("generation", "null")),
		c("generation negative", "generation", r.with("generation", "-1")),
		c("generation fractional", "generation", r.with("generation", "6.5")),
		c("generation string", "generation", r.with("generation", `"7"`)),
		c("generation unsafe", "generation", r.with("generation", "9007199254740992")),
		c("generation boolean", "generation", r.with("generation", "false")),
		c("generation object", "generation", r.with("generation", `{"value":7}`)),
		c("stoppedAt null", "stoppedAt", r.with("stoppedAt", "null")),
		c("stoppedAt string", "stoppedAt", r.with("stoppedAt", `"1764450009000"`)),
		c("stoppedAt infinite", "stoppedAt", r.with("stoppedAt", "1e400")),
		c("stoppedAt boolean", "stoppedAt", r.with("stoppedAt", "true")),
		c("legacy version 2", "version", legacy.with("version", "2")),
		c("legacy pid 0", "pid", legacy.with("pid", "0")),
		c("legacy heartbeatAt string", "heartbeatAt", legacy.with("heartbeatAt", `"x"`)),
		strict(c("startedAt fractional", "startedAt", r.with("startedAt", "1764450000000.5"))),
		strict(c("heartbeatAt beyond safe range", "heartbeatAt", r.with("heartbeatAt", "1e300"))),
		strict(c("stoppedAt fractional", "stoppedAt", r.with("stoppedAt", "0.5"))),
		strict(c("transportError number", "transportError", r.with("transportError", "5"))),
		strict(c("transportError null", "transportError", r.with("transportError", "null"))),
		strict(c("terminated string", "terminated", r.with("terminated", `"InvalidCredentials"`))),
		strict(c("terminated empty reason", "terminated", r.with("terminated", `{"reason":"","message":"x"}`))),
		strict(c("terminated without message", "terminated", r.with("terminated", `{"reason":"X"}`))),
		strict(c("terminated duplicate key", "terminated", r.with("terminated", `{"reason":"X","message":"a","message":"b"}`))),
		strict(recordCase{name: "duplicate pid", data: append(r.bytes()[:len(r.bytes())-2], []byte(`,"pid":`+strconv.Itoa(pid)+"}\n")...)}),
		{name: "array", data: []byte("[1]\n")},
		{name: "string", data: []byte(`"state"` + "\n")},
		{name: "null", data: []byte("null\n")},
		{name: "empty file", data: nil},
		{name: "whitespace only", data: []byte(" \n")},
		{name: "truncated", data: r.bytes()[:40]},
		{name: "two objects", data: append(r.bytes(), r.bytes()...)},
		{name: "trailing garbage", data: append(r.bytes(), 'x')},
		{name: "byte order mark", data: append([]byte("\xef\xbb\xbf"), r.bytes()...)},
		{name: "NaN literal", data: r.with("heartbeatAt", "NaN").bytes()},
		{name: "single quotes", data: []byte(`{'version':1}`)},
	}
	return append(cases, malformedRelays(r)...)
}

// goodRelay is a relay object with every field set.
const goodRelay = `{"pending":3,"oldestPendingAt":1764450001000,"failed":1,"blocked":{"reason":"RelayBlocked","message":"403 Missing Access"},` +
	`"rateLimitedUntil":1764450006000,"lastPostAt":1764450004000,"posted":12,"postSeconds":1.75,"rateLimitWaits":2,"filtered":6,` +
	`"inboxLanded":4,"inboxDuplicates":1,"inboxIgnored":7,"lastInboxAt":1764450005000,"inboxIgnoredBy":{"self":5,"unauthorized":2},"inboxWaiting":2}`

// malformedRelays: this project's relay object (which the reference
// ignores, so every case is stricter) judged whole.
func malformedRelays(r jsonObj) []recordCase {
	relay := func(name, field, value string) recordCase {
		return recordCase{name: "relay " + name, data: r.with("relay", value).bytes(), field: field, stricter: true}
	}
	edit := func(old, new string) string { return strings.Replace(goodRelay, old, new, 1) }
	long := strconv.Quote(strings.Repeat("x", maxDetail+1))
	return []recordCase{
		relay("null", "relay", "null"),
		relay("string", "relay", `"ok"`),
		relay("array", "relay", `[1]`),
		relay("unknown key", "relay", edit(`"pending":3`, `"pending":3,"extra":1`)),
		relay("duplicate key", "relay", edit(`"failed":1`, `"failed":1,"failed":2`)),
		relay("pending missing", "relay.pending", edit(`"pending":3,`, ``)),
		relay("pending negative", "relay.pending", edit(`"pending":3`, `"pending":-1`)),
		relay("pending fractional", "relay.pending", edit(`"pending":3`, `"pending":2.5`)),
		relay("pending string", "relay.pending", edit(`"pending":3`, `"pending":"3"`)),
		relay("pending unsafe", "relay.pending", edit(`"pending":3`, `"pending":9007199254740992`)),
		relay("failed null", "relay.failed", edit(`"failed":1`, `"failed":null`)),
		relay("posted negative", "relay.posted", edit(`"posted":12`, `"posted":-12`)),
		relay("rateLimitWaits boolean", "relay.rateLimitWaits", edit(`"rateLimitWaits":2`, `"rateLimitWaits":true`)),
		relay("filtered negative", "relay.filtered", edit(`"filtered":6`, `"filtered":-1`)),
		relay("oldestPendingAt negative", "relay.oldestPendingAt", edit(`"oldestPendingAt":1764450001000`, `"oldestPendingAt":-5`)),
		relay("lastPostAt string", "relay.lastPostAt", edit(`"lastPostAt":1764450004000`, `"lastPostAt":"now"`)),
		relay("rateLimitedUntil infinite", "relay.rateLimitedUntil", edit(`"rateLimitedUntil":1764450006000`, `"rateLimitedUntil":1e400`)),
		relay("postSeconds missing", "relay.postSeconds", edit(`"postSeconds":1.75,`, ``)),
		relay("postSeconds negative", "relay.postSeconds", edit(`"postSeconds":1.75`, `"postSeconds":-0.5`)),
		relay("postSeconds infinite", "relay.postSeconds", edit(`"postSeconds":1.75`, `"postSeconds":1e400`)),
		relay("blocked null", "relay.blocked", edit(`{"reason":"RelayBlocked","message":"403 Missing Access"}`, `null`)),
		relay("blocked string", "relay.blocked", edit(`{"reason":"RelayBlocked","message":"403 Missing Access"}`, `"RelayBlocked"`)),
		relay("blocked unknown reason", "relay.blocked", edit(`"reason":"RelayBlocked"`, `"reason":"TransportUnhealthy"`)),
		relay("blocked empty reason", "relay.blocked", edit(`"reason":"RelayBlocked"`, `"reason":""`)),
		relay("blocked reason number", "relay.blocked", edit(`"reason":"RelayBlocked"`, `"reason":1`)),
		relay("blocked without message", "relay.blocked", edit(`,"message":"403 Missing Access"`, ``)),
		relay("blocked message number", "relay.blocked", edit(`"message":"403 Missing Access"`, `"message":403`)),
		relay("blocked message too long", "relay.blocked", edit(`"message":"403 Missing Access"`, `"message":`+long)),
		relay("blocked unknown key", "relay.blocked", edit(`"message":"403 Missing Access"`, `"message":"m","since":1`)),
		relay("blocked duplicate key", "relay.blocked", edit(`"message":"403 Missing Access"`, `"message":"a","message":"b"`)),
		relay("inboxLanded negative", "relay.inboxLanded", edit(`"inboxLanded":4`, `"inboxLanded":-4`)),
		relay("inboxIgnoredBy array", "relay.inboxIgnoredBy", edit(`{"self":5,"unauthorized":2}`, `[5,2]`)),
		relay("inboxIgnoredBy unknown reason", "relay.inboxIgnoredBy", edit(`"self":5`, `"mood":5`)),
		relay("inboxIgnoredBy duplicate reason", "relay.inboxIgnoredBy", edit(`"self":5`, `"self":5,"self":6`)),
		relay("inboxIgnoredBy negative", "relay.inboxIgnoredBy", edit(`"self":5`, `"self":-5`)),
		relay("inboxIgnoredBy fractional", "relay.inboxIgnoredBy", edit(`"self":5`, `"self":0.5`)),
		relay("inboxIgnoredBy string", "relay.inboxIgnoredBy", edit(`"self":5`, `"self":"5"`)),
	}
}

func TestParseStateMalformed(t *testing.T) {
	for _, tc := range malformedRecords(4242, "linux:98231") {
		t.Run(tc.name, func(t *testing.T) {
			st, legacy, err := ParseState(tc.data)
			if err == nil {
				t.Fatalf("accepted %s as %+v (legacy %v)", tc.data, st, legacy)
			}
			var me *ownership.MalformedError
			if !errors.As(err, &me) || !errors.Is(err, ownership.ErrMalformed) {
				t.Fatalf("error %v is not a *MalformedError", err)
			}
			if me.Field != tc.field {
				t.Errorf("error names field %q, want %q: %v", me.Field, tc.field, err)
			}
			if ownership.Reason(err) != ownership.ReasonMalformedOwnerRecord {
				t.Errorf("reason %q", ownership.Reason(err))
			}
			// The oracle: the reference refuses the same records, except
			// the ones we refuse on purpose.
			v, parsed := jsParse(tc.data)
			refAccepts := parsed && (refStateShape(v) || refLegacyGeneration(v) || refExactLegacy(v))
			if refAccepts != tc.stricter {
				t.Errorf("reference accepts: %v, want %v", refAccepts, tc.stricter)
			}
		})
	}
}

func TestParseStateAccepts(t *testing.T) {
	r := recordObj(4242, "linux:98231")
	legacy := r.without("generation").with("incarnation", `"unavailable"`)
	for _, tc := range []struct {
		name   string
		data   []byte
		legacy bool
		check  func(*ownership.State) bool
	}{
		{"reference record", r.bytes(), false, func(s *ownership.State) bool { return s.PID == 4242 && *s.Generation == 7 && s.StoppedAt == nil }},
		{"pid 4242.0 is the integer 4242", r.with("pid", "4242.0").bytes(), false, func(s *ownership.State) bool { return s.PID == 4242 }},
		{"pid 4.242e3", r.with("pid", "4.242e3").bytes(), false, func(s *ownership.State) bool { return s.PID == 4242 }},
		{"version 1.0", r.with("version", "1.0").bytes(), false, func(s *ownership.State) bool { return s.Version == 1 }},
		{"generation -0 is 0", r.with("generation", "-0").bytes(), false, func(s *ownership.State) bool { return *s.Generation == 0 }},
		{"generation 0", r.with("generation", "0").bytes(), false, func(s *ownership.State) bool { return *s.Generation == 0 }},
		{"generation max safe", r.with("generation", "9007199254740991").bytes(), false, func(s *ownership.State) bool { return *s.Generation == maxSafeInteger }},
		{"legacy generation (missing)", r.without("generation").bytes(), false, func(s *ownership.State) bool { return s.Generation == nil }},
		{"released", r.with("stoppedAt", "1764450009000").bytes(), false, func(s *ownership.State) bool { return *s.StoppedAt == 1764450009000 }},
		{"negative time", r.with("startedAt", "-5").bytes(), false, func(s *ownership.State) bool { return s.StartedAt == -5 }},
		{"time 1e12", r.with("startedAt", "1e12").bytes(), false, func(s *ownership.State) bool { return s.StartedAt == 1e12 }},
		{"unknown keys ignored", r.with("future", `{"x":[1,2]}`).with("note", `"hi"`).bytes(), false, func(s *ownership.State) bool { return s.PID == 4242 }},
		{"keys in another order", append(jsonObj{{"generation", "7"}}, r.without("generation")...).bytes(), false, func(s *ownership.State) bool { return *s.Generation == 7 }},
		{"pretty printed", []byte("{\n  \"version\": 1, \"kind\": \"slack\", \"pid\": 1, \"ownerId\": \"o\", \"identity\": \"i\",\n \"incarnation\": \"darwin:1764450000:123456\", \"startedAt\": 1, \"heartbeatAt\": 2, \"transportHealthy\": false, \"generation\": 3 }"), false,
			func(s *ownership.State) bool { return s.Kind == "slack" && s.Incarnation == "darwin:1764450000:123456" }},
		{"transportError and terminated", r.with("transportError", `"gateway closed"`).with("terminated", `{"reason":"InvalidCredentials","message":"4004","extra":1}`).bytes(), false,
			func(s *ownership.State) bool {
				return s.TransportError == "gateway closed" && s.Terminated.Reason == "InvalidCredentials" && s.Terminated.Message == "4004"
			}},
		// Free text from a remote server's error or another writer reaches
		// an operator's terminal: read as one line of printable text, so
		// an escape sequence in it is never sent to that terminal.
		{"control characters in free text", r.with("transportError", `"4004 \u001b]0;pwned\u0007\u001b[2J\u009b31m\nnext"`).
			with("terminated", `{"reason":"Bad\u001b[1m","message":"m\u001b[0m\r"}`).bytes(), false,
			func(s *ownership.State) bool {
				free := s.TransportError + s.Terminated.Reason + s.Terminated.Message
				return strings.HasPrefix(s.TransportError, "4004 ") && !strings.ContainsFunc(free, unicode.IsControl)
			}},
		{"relay", r.with("relay", goodRelay).bytes(), false, func(s *ownership.State) bool {
			want := ownership.RelayState{Pending: 3, OldestPendingAt: 1764450001000, Failed: 1, Blocked: &ownership.RelayBlock{Reason: "RelayBlocked", Message: "403 Missing Access"},
				RateLimitedUntil: 1764450006000, LastPostAt: 1764450004000, Posted: 12, PostSeconds: 1.75, RateLimitWaits: 2, Filtered: 6,
				InboxLanded: 4, InboxDuplicates: 1, InboxIgnored: 7, LastInboxAt: 1764450005000, InboxIgnoredBy: map[string]int64{"self": 5, "unauthorized": 2}, InboxWaiting: 2}
			return s.Relay != nil && s.Relay.Blocked != nil && *s.Relay.Blocked == *want.Blocked && reflect.DeepEqual(relayFigures(*s.Relay), relayFigures(want))
		}},
		{"relay without the optional fields", r.with("relay", `{"pending":0,"failed":0,"posted":0,"postSeconds":0,"rateLimitWaits":0}`).bytes(), false,
			func(s *ownership.State) bool {
				return s.Relay != nil && reflect.DeepEqual(*s.Relay, ownership.RelayState{})
			}},
		{"relay ChannelUnavailable, keys in another order, numbers as JavaScript reads them",
			r.with("relay", `{"postSeconds":1e-7,"rateLimitWaits":0,"posted":1.0,"blocked":{"message":"m\u001b[2J","reason":"ChannelUnavailable"},"failed":-0,"pending":2e0}`).bytes(), false,
			func(s *ownership.State) bool {
				return s.Relay.Pending == 2 && s.Relay.Posted == 1 && s.Relay.PostSeconds == 1e-7 && s.Relay.Blocked.Reason == "ChannelUnavailable" &&
					!strings.ContainsFunc(s.Relay.Blocked.Message, unicode.IsControl)
			}},
		{"relay block message at the cap", r.with("relay", strings.Replace(goodRelay, "403 Missing Access", strings.Repeat("x", maxDetail), 1)).bytes(), false,
			func(s *ownership.State) bool { return len(s.Relay.Blocked.Message) == maxDetail }},
		{"no relay", r.bytes(), false, func(s *ownership.State) bool { return s.Relay == nil }},
		{"legacy unavailable record", legacy.bytes(), true, func(s *ownership.State) bool {
			return s.Incarnation == ownership.LegacyIncarnation && s.Generation == nil
		}},
		{"legacy released", legacy.with("stoppedAt", "1764450009000").bytes(), true, func(s *ownership.State) bool { return s.StoppedAt != nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, legacy, err := ParseState(tc.data)
			if err != nil {
				t.Fatalf("refused %s: %v", tc.data, err)
			}
			if legacy != tc.legacy || !tc.check(st) {
				t.Fatalf("parsed %s as %+v legacy=%v", tc.data, st, legacy)
			}
			v, _ := jsParse(tc.data)
			switch {
			case legacy && !refExactLegacy(v),
				!legacy && st.Generation != nil && !refStateShape(v),
				!legacy && st.Generation == nil && !refLegacyGeneration(v):
				t.Fatalf("the reference refuses what we accept: %s", tc.data)
			}
			// What we accept re-marshals to a record we accept as the same.
			again, legacyAgain, err := ParseState(st.Marshal())
			if err != nil || legacyAgain != legacy || !statesEqual(*st, *again) {
				t.Fatalf("re-marshal: %s -> %+v, %v", st.Marshal(), again, err)
			}
		})
	}
}

// relayFigures is a relay state without its pointer, to compare.
func relayFigures(r ownership.RelayState) ownership.RelayState { r.Blocked = nil; return r }

func statesEqual(a, b ownership.State) bool {
	return len(diffStates(a, b)) == 0 && a.Version == b.Version
}

func TestParseOwnerLock(t *testing.T) {
	for _, tc := range []struct {
		data string
		ok   bool
	}{
		{`{"pid":4242,"incarnation":"linux:98231","createdAt":1764450000000}`, true},
		{`{"pid":4242,"incarnation":"unavailable","createdAt":1764450000000}`, true}, // authority is judged later
		{`{"pid":4242.0,"incarnation":"","createdAt":1,"x":2}`, true},
		{`{"pid":0,"incarnation":"linux:1","createdAt":1}`, false},
		{`{"pid":"4242","incarnation":"linux:1","createdAt":1}`, false},
		{`{"pid":4242,"incarnation":1,"createdAt":1}`, false},
		{`{"pid":4242,"incarnation":"linux:1"}`, false},
		{`{"pid":4242,"incarnation":"linux:1","createdAt":null}`, false},
		{`{"pid":4242,"pid":4243,"incarnation":"linux:1","createdAt":1}`, false},
		{`[4242]`, false},
		{``, false},
	} {
		l, err := ParseOwnerLock([]byte(tc.data))
		if (err == nil) != tc.ok {
			t.Errorf("ParseOwnerLock(%s) = %+v, %v; want ok=%v", tc.data, l, err, tc.ok)
			continue
		}
		if v, parsed := jsParse([]byte(tc.data)); err == nil && !(parsed && refOwnerLock(v)) {
			t.Errorf("the reference refuses lock %s", tc.data)
		}
		if err == nil {
			if again, err := ParseOwnerLock(l.Marshal()); err != nil || *again != *l {
				t.Errorf("re-marshal of %s: %+v, %v", tc.data, again, err)
			}
		}
	}
}
