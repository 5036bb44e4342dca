package ownership

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"

	rt "gjc.dev/reconciler/pkg/ownership/internal/recordtest"
	"gjc.dev/reconciler/pkg/spec"
)

func TestParseStateMalformed(t *testing.T) {
	for _, tc := range rt.MalformedRecords(4242, "linux:98231") {
		t.Run(tc.Name, func(t *testing.T) {
			st, legacy, err := ParseState(tc.Data)
			if err == nil {
				t.Fatalf("accepted %s as %+v (legacy %v)", tc.Data, st, legacy)
			}
			var me *MalformedError
			if !errors.As(err, &me) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not a *MalformedError", err)
			}
			if me.Field != tc.Field {
				t.Errorf("error names field %q, want %q: %v", me.Field, tc.Field, err)
			}
			if Reason(err) != ReasonMalformedOwnerRecord {
				t.Errorf("reason %q", Reason(err))
			}
			// The oracle: the reference refuses the same records, except
			// the ones we refuse on purpose.
			v, parsed := rt.JSParse(tc.Data)
			refAccepts := parsed && (rt.StateShape(v) || rt.LegacyGeneration(v) || rt.ExactLegacy(v))
			if refAccepts != tc.Stricter {
				t.Errorf("reference accepts: %v, want %v", refAccepts, tc.Stricter)
			}
		})
	}
}

func TestParseStateAccepts(t *testing.T) {
	r := rt.Record(4242, "linux:98231")
	legacy := r.Without("generation").With("incarnation", `"unavailable"`)
	for _, tc := range []struct {
		name   string
		data   []byte
		legacy bool
		check  func(*State) bool
	}{
		{"reference record", r.Bytes(), false, func(s *State) bool { return s.PID == 4242 && s.Generation == gen(7) && s.StoppedAt == nil }},
		{"pid 4242.0 is the integer 4242", r.With("pid", "4242.0").Bytes(), false, func(s *State) bool { return s.PID == 4242 }},
		{"pid 4.242e3", r.With("pid", "4.242e3").Bytes(), false, func(s *State) bool { return s.PID == 4242 }},
		{"version 1.0", r.With("version", "1.0").Bytes(), false, func(s *State) bool { return s.Version == 1 }},
		{"generation -0 is 0", r.With("generation", "-0").Bytes(), false, func(s *State) bool { return s.Generation == gen(0) }},
		{"generation 0", r.With("generation", "0").Bytes(), false, func(s *State) bool { return s.Generation == gen(0) }},
		{"generation max safe", r.With("generation", "9007199254740991").Bytes(), false, func(s *State) bool { return s.Generation == gen(maxSafeInteger) }},
		{"legacy generation (missing)", r.Without("generation").Bytes(), false, func(s *State) bool { return s.Generation == spec.NoGeneration }},
		{"released", r.With("stoppedAt", "1764450009000").Bytes(), false, func(s *State) bool { return *s.StoppedAt == 1764450009000 }},
		{"negative time", r.With("startedAt", "-5").Bytes(), false, func(s *State) bool { return s.StartedAt == -5 }},
		{"time 1e12", r.With("startedAt", "1e12").Bytes(), false, func(s *State) bool { return s.StartedAt == 1e12 }},
		{"unknown keys ignored", r.With("future", `{"x":[1,2]}`).With("note", `"hi"`).Bytes(), false, func(s *State) bool { return s.PID == 4242 }},
		{"keys in another order", append(rt.Obj{{K: "generation", V: "7"}}, r.Without("generation")...).Bytes(), false, func(s *State) bool { return s.Generation == gen(7) }},
		{"pretty printed", []byte("{\n  \"version\": 1, \"kind\": \"slack\", \"pid\": 1, \"ownerId\": \"o\", \"identity\": \"i\",\n \"incarnation\": \"darwin:1764450000:123456\", \"startedAt\": 1, \"heartbeatAt\": 2, \"transportHealthy\": false, \"generation\": 3 }"), false,
			func(s *State) bool { return s.Kind == "slack" && s.Incarnation == "darwin:1764450000:123456" }},
		{"transportError and terminated", r.With("transportError", `"gateway closed"`).With("terminated", `{"reason":"InvalidCredentials","message":"4004","extra":1}`).Bytes(), false,
			func(s *State) bool {
				return s.TransportError == "gateway closed" && s.Terminated.Reason == "InvalidCredentials" && s.Terminated.Message == "4004"
			}},
		{"logins", r.With("logins", `{"used":12,"limit":1000,"resetAt":1764450000000}`).Bytes(), false,
			func(s *State) bool { return *s.Logins == Logins{Used: 12, Limit: 1000, ResetAt: 1764450000000} }},
		{"transportReason", r.With("transportError", `"3 connections"`).With("transportReason", `"TokenInUse"`).Bytes(), false,
			func(s *State) bool { return s.TransportReason == "TokenInUse" }},
		// Free text from a remote server's error or another writer reaches
		// an operator's terminal: read as one line of printable text, so
		// an escape sequence in it is never sent to that terminal.
		{"control characters in free text", r.With("transportError", `"4004 \u001b]0;pwned\u0007\u001b[2J\u009b31m\nnext"`).
			With("terminated", `{"reason":"Bad\u001b[1m","message":"m\u001b[0m\r"}`).Bytes(), false,
			func(s *State) bool {
				free := s.TransportError + s.Terminated.Reason + s.Terminated.Message
				return strings.HasPrefix(s.TransportError, "4004 ") && !strings.ContainsFunc(free, unicode.IsControl)
			}},
		{"relay", r.With("relay", rt.GoodRelay).Bytes(), false, func(s *State) bool {
			want := RelayState{Pending: 3, OldestPendingAt: 1764450001000, Failed: 1, Blocked: &RelayBlock{Reason: "RelayBlocked", Message: "403 Missing Access"},
				RateLimitedUntil: 1764450006000, LastPostAt: 1764450004000, Posted: 12, PostSeconds: 1.75, RateLimitWaits: 2, Filtered: 6,
				InboxLanded: 4, InboxDuplicates: 1, InboxIgnored: 7, LastInboxAt: 1764450005000, InboxIgnoredBy: map[string]int64{"self": 5, "unauthorized": 2}, InboxWaiting: 2}
			return s.Relay != nil && s.Relay.Blocked != nil && *s.Relay.Blocked == *want.Blocked && reflect.DeepEqual(relayFigures(*s.Relay), relayFigures(want))
		}},
		{"relay without the optional fields", r.With("relay", `{"pending":0,"failed":0,"posted":0,"postSeconds":0,"rateLimitWaits":0}`).Bytes(), false,
			func(s *State) bool {
				return s.Relay != nil && reflect.DeepEqual(*s.Relay, RelayState{})
			}},
		{"relay ChannelUnavailable, keys in another order, numbers as JavaScript reads them",
			r.With("relay", `{"postSeconds":1e-7,"rateLimitWaits":0,"posted":1.0,"blocked":{"message":"m\u001b[2J","reason":"ChannelUnavailable"},"failed":-0,"pending":2e0}`).Bytes(), false,
			func(s *State) bool {
				return s.Relay.Pending == 2 && s.Relay.Posted == 1 && s.Relay.PostSeconds == 1e-7 && s.Relay.Blocked.Reason == "ChannelUnavailable" &&
					!strings.ContainsFunc(s.Relay.Blocked.Message, unicode.IsControl)
			}},
		{"relay missed replies and lag",
			r.With("relay", `{"pending":0,"failed":0,"posted":0,"postSeconds":0,"rateLimitWaits":0,"inboxMissed":2,"inboxLagMs":1500}`).Bytes(), false,
			func(s *State) bool { return s.Relay.InboxMissed == 2 && s.Relay.InboxLagMs == 1500 }},
		{"relay asks",
			r.With("relay", `{"pending":0,"failed":0,"posted":0,"postSeconds":0,"rateLimitWaits":0,"asksOpen":1,"asksDecided":2,"asksExpired":3,"asksRefused":4}`).Bytes(), false,
			func(s *State) bool {
				return s.Relay.AsksOpen == 1 && s.Relay.AsksDecided == 2 && s.Relay.AsksExpired == 3 && s.Relay.AsksRefused == 4
			}},
		{"relay block message at the cap", r.With("relay", strings.Replace(rt.GoodRelay, "403 Missing Access", strings.Repeat("x", MaxDetail), 1)).Bytes(), false,
			func(s *State) bool { return len(s.Relay.Blocked.Message) == MaxDetail }},
		{"no relay", r.Bytes(), false, func(s *State) bool { return s.Relay == nil }},
		{"legacy unavailable record", legacy.Bytes(), true, func(s *State) bool {
			return s.Incarnation == LegacyIncarnation && s.Generation == spec.NoGeneration
		}},
		{"legacy released", legacy.With("stoppedAt", "1764450009000").Bytes(), true, func(s *State) bool { return s.StoppedAt != nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, legacy, err := ParseState(tc.data)
			if err != nil {
				t.Fatalf("refused %s: %v", tc.data, err)
			}
			if legacy != tc.legacy || !tc.check(st) {
				t.Fatalf("parsed %s as %+v legacy=%v", tc.data, st, legacy)
			}
			v, _ := rt.JSParse(tc.data)
			switch {
			case legacy && !rt.ExactLegacy(v),
				!legacy && st.Generation != spec.NoGeneration && !rt.StateShape(v),
				!legacy && st.Generation == spec.NoGeneration && !rt.LegacyGeneration(v):
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
func relayFigures(r RelayState) RelayState { r.Blocked = nil; return r }

// statesEqual compares every field, an empty inboxIgnoredBy as none (the
// record writes neither).
func statesEqual(a, b State) bool {
	norm := func(s State) State {
		if s.Relay != nil && len(s.Relay.InboxIgnoredBy) == 0 {
			r := *s.Relay
			r.InboxIgnoredBy = nil
			s.Relay = &r
		}
		return s
	}
	return reflect.DeepEqual(norm(a), norm(b))
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
		if v, parsed := rt.JSParse([]byte(tc.data)); err == nil && !(parsed && rt.OwnerLock(v)) {
			t.Errorf("the reference refuses lock %s", tc.data)
		}
		if err == nil {
			if again, err := ParseOwnerLock(l.Marshal()); err != nil || *again != *l {
				t.Errorf("re-marshal of %s: %+v, %v", tc.data, again, err)
			}
		}
	}
}
