// Package recordtest holds the record fixtures and the reference's
// predicates that the tests of pkg/ownership and of its backends share: a
// record built field by field, the matrix of malformed records, and an
// oracle of what the reference accepts. For tests only.
package recordtest

import (
	"strconv"
	"strings"
)

// Obj is a record as ordered raw members, to build exact variants.
// The owner and identity a Record names: the ones the backends' tests
// give their owners, so a record built here is one of theirs.
const (
	Identity = "7040273bec62d43f"
	OwnerID  = "4100-6f1c1c52-7a0e-4d0e-9b7e-1d2f3a4b5c6d"
)

// MaxDetail is ownership.MaxDetail, restated: this package is imported by
// ownership's own tests, so it cannot import ownership.
const MaxDetail = 1024

// Obj is a record as ordered raw members, to build exact variants.
type Obj []Member

// Member is one key of an Obj and its raw JSON value.
type Member struct{ K, V string }

// Record is a valid record of owner pid/incarnation, generation 7.
func Record(pid int, incarnation string) Obj {
	return Obj{
		{"version", "1"}, {"kind", `"discord"`}, {"pid", strconv.Itoa(pid)},
		{"ownerId", strconv.Quote(OwnerID)}, {"identity", strconv.Quote(Identity)},
		{"incarnation", strconv.Quote(incarnation)}, {"startedAt", "1764450000000"},
		{"heartbeatAt", "1764450005000"}, {"transportHealthy", "true"}, {"generation", "7"},
	}
}

func (o Obj) With(k, v string) Obj {
	out := append(Obj(nil), o...)
	for i := range out {
		if out[i].K == k {
			out[i].V = v
			return out
		}
	}
	return append(out, Member{k, v})
}

func (o Obj) Without(k string) Obj {
	var out Obj
	for _, m := range o {
		if m.K != k {
			out = append(out, m)
		}
	}
	return out
}

func (o Obj) Bytes() []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(m.K) + ":" + m.V)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

type Case struct {
	Name  string
	Data  []byte
	Field string // the field the error must name; "" for the file as a whole
	// stricter: the reference accepts this record; we refuse it on
	// purpose (see ParseState).
	Stricter bool
}

// MalformedRecords is the reference's malformed-field matrix, plus this
// project's stricter rules, for a record naming pid/incarnation.
func MalformedRecords(pid int, incarnation string) []Case {
	r := Record(pid, incarnation)
	cases := append(referenceMalformed(r, pid), stricterMalformed(r, pid)...)
	cases = append(cases, notOneObject(r)...)
	return append(cases, MalformedRelays(r)...)
}

// field is a record whose error must name the field at.
func field(name, at string, o Obj) Case { return Case{Name: name, Data: o.Bytes(), Field: at} }

// strict marks a case the reference accepts and this project refuses.
func strict(c Case) Case { c.Stricter = true; return c }

// referenceMalformed is the reference's malformed-field matrix.
func referenceMalformed(r Obj, pid int) []Case {
	legacy := r.Without("generation").With("incarnation", `"unavailable"`)
	return []Case{
		field("version missing", "version", r.Without("version")),
		field("version 2", "version", r.With("version", "2")),
		field("version string", "version", r.With("version", `"1"`)),
		field("version null", "version", r.With("version", "null")),
		field("kind missing", "kind", r.Without("kind")),
		field("kind unknown", "kind", r.With("kind", `"irc"`)),
		field("kind empty", "kind", r.With("kind", `""`)),
		field("kind number", "kind", r.With("kind", "1")),
		field("pid missing", "pid", r.Without("pid")),
		field("pid 0", "pid", r.With("pid", "0")),
		field("pid -0", "pid", r.With("pid", "-0")),
		field("pid negative", "pid", r.With("pid", "-"+strconv.Itoa(pid))),
		field("pid unsafe 2^53", "pid", r.With("pid", "9007199254740992")),
		field("pid unsafe rounds to 2^53", "pid", r.With("pid", "9007199254740993")),
		field("pid huge", "pid", r.With("pid", "1e400")),
		field("pid fractional", "pid", r.With("pid", strconv.Itoa(pid)+".5")),
		field("pid string", "pid", r.With("pid", strconv.Quote(strconv.Itoa(pid)))),
		field("pid null", "pid", r.With("pid", "null")),
		field("pid boolean", "pid", r.With("pid", "true")),
		field("ownerId empty", "ownerId", r.With("ownerId", `""`)),
		field("ownerId missing", "ownerId", r.Without("ownerId")),
		field("ownerId number", "ownerId", r.With("ownerId", "4100")),
		field("identity empty", "identity", r.With("identity", `""`)),
		field("identity missing", "identity", r.Without("identity")),
		field("identity null", "identity", r.With("identity", "null")),
		field("incarnation missing", "incarnation", r.Without("incarnation")),
		field("incarnation unavailable with generation", "incarnation", r.With("incarnation", `"unavailable"`)),
		field("incarnation unavailable with extra key", "incarnation", legacy.With("extra", "1")),
		field("incarnation garbage", "incarnation", r.With("incarnation", `"linux:abc"`)),
		field("incarnation leading zero", "incarnation", r.With("incarnation", `"linux:0123"`)),
		field("incarnation empty", "incarnation", r.With("incarnation", `""`)),
		field("incarnation number", "incarnation", r.With("incarnation", "98231")),
		field("startedAt string", "startedAt", r.With("startedAt", `"1764450000000"`)),
		field("startedAt missing", "startedAt", r.Without("startedAt")),
		field("startedAt null", "startedAt", r.With("startedAt", "null")),
		field("startedAt infinite", "startedAt", r.With("startedAt", "1e400")),
		field("heartbeatAt NaN string", "heartbeatAt", r.With("heartbeatAt", `"NaN"`)),
		field("heartbeatAt missing", "heartbeatAt", r.Without("heartbeatAt")),
		field("heartbeatAt null (JSON.stringify(NaN))", "heartbeatAt", r.With("heartbeatAt", "null")),
		field("heartbeatAt -Infinity", "heartbeatAt", r.With("heartbeatAt", "-1e999")),
		field("transportHealthy string", "transportHealthy", r.With("transportHealthy", `"true"`)),
		field("transportHealthy number", "transportHealthy", r.With("transportHealthy", "1")),
		field("transportHealthy missing", "transportHealthy", r.Without("transportHealthy")),
		field("generation null", "generation", r.With("generation", "null")),
		field("generation negative", "generation", r.With("generation", "-1")),
		field("generation fractional", "generation", r.With("generation", "6.5")),
		field("generation string", "generation", r.With("generation", `"7"`)),
		field("generation unsafe", "generation", r.With("generation", "9007199254740992")),
		field("generation boolean", "generation", r.With("generation", "false")),
		field("generation object", "generation", r.With("generation", `{"value":7}`)),
		field("stoppedAt null", "stoppedAt", r.With("stoppedAt", "null")),
		field("stoppedAt string", "stoppedAt", r.With("stoppedAt", `"1764450009000"`)),
		field("stoppedAt infinite", "stoppedAt", r.With("stoppedAt", "1e400")),
		field("stoppedAt boolean", "stoppedAt", r.With("stoppedAt", "true")),
		field("legacy version 2", "version", legacy.With("version", "2")),
		field("legacy pid 0", "pid", legacy.With("pid", "0")),
		field("legacy heartbeatAt string", "heartbeatAt", legacy.With("heartbeatAt", `"x"`)),
	}
}

// stricterMalformed are the records only this project refuses.
func stricterMalformed(r Obj, pid int) []Case {
	return []Case{
		strict(field("startedAt fractional", "startedAt", r.With("startedAt", "1764450000000.5"))),
		strict(field("heartbeatAt beyond safe range", "heartbeatAt", r.With("heartbeatAt", "1e300"))),
		strict(field("stoppedAt fractional", "stoppedAt", r.With("stoppedAt", "0.5"))),
		strict(field("transportError number", "transportError", r.With("transportError", "5"))),
		strict(field("transportError null", "transportError", r.With("transportError", "null"))),
		// A reason becomes a status condition's reason, whose syntax is
		// strict: anything else in one is a record we cannot trust.
		strict(field("logins not an object", "logins", r.With("logins", "12"))),
		strict(field("logins missing resetAt", "logins", r.With("logins", `{"used":1,"limit":1000}`))),
		strict(field("logins used over limit", "logins", r.With("logins", `{"used":1001,"limit":1000,"resetAt":1}`))),
		strict(field("logins negative", "logins", r.With("logins", `{"used":-1,"limit":1000,"resetAt":1}`))),
		strict(field("logins unknown key", "logins", r.With("logins", `{"used":1,"limit":1000,"resetAt":1,"x":0}`))),
		strict(field("transportReason without transportError", "transportReason", r.With("transportReason", `"TokenInUse"`))),
		strict(field("transportReason not a word", "transportReason", r.With("transportReason", `"Token In Use"`))),
		strict(field("transportReason lower-case", "transportReason", r.With("transportReason", `"tokenInUse"`))),
		strict(field("transportReason a number", "transportReason", r.With("transportReason", "7"))),
		strict(field("transportReason too long", "transportReason", r.With("transportReason", `"A`+strings.Repeat("b", 64)+`"`))),
		strict(field("terminated string", "terminated", r.With("terminated", `"InvalidCredentials"`))),
		strict(field("terminated empty reason", "terminated", r.With("terminated", `{"reason":"","message":"x"}`))),
		strict(field("terminated without message", "terminated", r.With("terminated", `{"reason":"X"}`))),
		strict(field("terminated duplicate key", "terminated", r.With("terminated", `{"reason":"X","message":"a","message":"b"}`))),
		strict(Case{Name: "duplicate pid", Data: append(r.Bytes()[:len(r.Bytes())-2], []byte(`,"pid":`+strconv.Itoa(pid)+"}\n")...)}),
	}
}

// notOneObject are files that are not one JSON object at all.
func notOneObject(r Obj) []Case {
	return []Case{
		{Name: "array", Data: []byte("[1]\n")},
		{Name: "string", Data: []byte(`"state"` + "\n")},
		{Name: "null", Data: []byte("null\n")},
		{Name: "empty file", Data: nil},
		{Name: "whitespace only", Data: []byte(" \n")},
		{Name: "truncated", Data: r.Bytes()[:40]},
		{Name: "two objects", Data: append(r.Bytes(), r.Bytes()...)},
		{Name: "trailing garbage", Data: append(r.Bytes(), 'x')},
		{Name: "byte order mark", Data: append([]byte("\xef\xbb\xbf"), r.Bytes()...)},
		{Name: "NaN literal", Data: r.With("heartbeatAt", "NaN").Bytes()},
		{Name: "single quotes", Data: []byte(`{'version':1}`)},
	}
}

// GoodRelay is a relay object with every field set.
const GoodRelay = `{"pending":3,"oldestPendingAt":1764450001000,"failed":1,"blocked":{"reason":"RelayBlocked","message":"403 Missing Access"},` +
	`"rateLimitedUntil":1764450006000,"lastPostAt":1764450004000,"posted":12,"postSeconds":1.75,"rateLimitWaits":2,"filtered":6,` +
	`"inboxLanded":4,"inboxDuplicates":1,"inboxIgnored":7,"lastInboxAt":1764450005000,"inboxIgnoredBy":{"self":5,"unauthorized":2},"inboxWaiting":2}`

// MalformedRelays: this project's relay object (which the reference
// ignores, so every case is stricter) judged whole.
func MalformedRelays(r Obj) []Case {
	relay := func(name, field, value string) Case {
		return Case{Name: "relay " + name, Data: r.With("relay", value).Bytes(), Field: field, Stricter: true}
	}
	edit := func(old, new string) string { return strings.Replace(GoodRelay, old, new, 1) }
	long := strconv.Quote(strings.Repeat("x", MaxDetail+1))
	return []Case{
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
