package fsstore

import (
	"bytes"
	"gjc.dev/reconciler/pkg/ownership"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// stateChanges changes each field of State to another valid value. Every
// field must be here: a field added to State fails this test until it is
// marshalled, parsed, diffed and cloned like the others.
var stateChanges = map[string]func(*ownership.State){
	"version":          func(s *ownership.State) { s.Version = 2 }, // unparseable: the parser knows version 1 only
	"kind":             func(s *ownership.State) { s.Kind = "slack" },
	"pid":              func(s *ownership.State) { s.PID++ },
	"ownerId":          func(s *ownership.State) { s.OwnerID += "-x" },
	"identity":         func(s *ownership.State) { s.Identity = "df9a87a1207d9253" },
	"incarnation":      func(s *ownership.State) { s.Incarnation = "linux:2" },
	"startedAt":        func(s *ownership.State) { s.StartedAt-- },
	"heartbeatAt":      func(s *ownership.State) { s.HeartbeatAt++ },
	"transportHealthy": func(s *ownership.State) { s.TransportHealthy = !s.TransportHealthy },
	"generation":       func(s *ownership.State) { s.Generation = gen(8) },
	"stoppedAt":        func(s *ownership.State) { s.StoppedAt = ms(s.HeartbeatAt) },
	"transportError":   func(s *ownership.State) { s.TransportError = "gateway closed" },
	"transportReason":  func(s *ownership.State) { s.TransportError, s.TransportReason = "2 connections", "TokenInUse" },
	"logins":           func(s *ownership.State) { s.Logins = &ownership.Logins{Used: 3, Limit: 1000, ResetAt: 1764450000000} },
	"terminated": func(s *ownership.State) {
		s.Terminated = &ownership.Terminated{Reason: "InvalidCredentials", Message: "close 4004"}
	},
	"bootId":  func(s *ownership.State) { s.BootID = "another-boot" },
	"machine": func(s *ownership.State) { s.Machine = "laptop-2" },
	"relay": func(s *ownership.State) {
		s.Relay = &ownership.RelayState{Pending: 3, OldestPendingAt: s.HeartbeatAt - 2000, Failed: 1,
			Blocked: &ownership.RelayBlock{Reason: "ChannelUnavailable", Message: "unknown channel 123"}, RateLimitedUntil: s.HeartbeatAt + 500,
			LastPostAt: s.HeartbeatAt - 100, Posted: 12, PostSeconds: 1.75, RateLimitWaits: 2,
			InboxLanded: 4, InboxDuplicates: 1, InboxIgnored: 7, LastInboxAt: s.HeartbeatAt - 50,
			InboxIgnoredBy: map[string]int64{"unauthorized": 2, "self": 5}, InboxWaiting: 2}
	},
}

// identifying are the fields a signal's re-check compares (decidedDiff):
// they name the owner. The rest may change under a live owner (its
// heartbeat, its release) without making it another one.
var identifying = []string{"ownerId", "pid", "identity", "incarnation", "generation", "kind"}

func stateFieldNames(t *testing.T) []string {
	t.Helper()
	var names []string
	rt := reflect.TypeFor[ownership.State]()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name == "" {
			t.Fatalf("State.%s has no json name", rt.Field(i).Name)
		}
		names = append(names, name)
	}
	return names
}

// One source for the record format: every field is written, read back,
// compared and deep-copied.
func TestStateFieldsEverywhere(t *testing.T) {
	base := stateOf(4242, "linux:98231")
	base.BootID = "this-boot"
	for _, name := range stateFieldNames(t) {
		change, ok := stateChanges[name]
		if !ok {
			t.Errorf("State field %q is not in stateChanges: add it there, to Marshal, ParseState, diffStates and clone (and decide whether it identifies the owner)", name)
			continue
		}
		changed := base.Clone()
		change(&changed)
		if bytes.Equal(changed.Marshal(), base.Marshal()) || !bytes.Contains(changed.Marshal(), []byte(`"`+name+`"`)) {
			t.Errorf("%s: Marshal does not write it", name)
		}
		if name != "version" {
			got, _, err := ownership.ParseState(changed.Marshal())
			if err != nil || !reflect.DeepEqual(*got, changed) {
				t.Errorf("%s: ParseState(Marshal) = %+v, %v; want %+v", name, got, err, changed)
			}
		}
		if d := diffStates(base, changed); !slices.ContainsFunc(d, func(f fieldDiff) bool { return f.field == name }) {
			t.Errorf("%s: diffStates does not compare it (got %v)", name, d)
		}
		d := ownership.DecidedChange(base, changed)
		if want := slices.Contains(identifying, name); (d != nil && d.Field == name) != want {
			t.Errorf("%s: DecidedChange = %v; identifying: %v", name, d, want)
		}
	}
}

// clone shares nothing with its original.
func TestStateCloneIsDeep(t *testing.T) {
	s := stateOf(4242, "linux:98231")
	for _, name := range stateFieldNames(t) {
		stateChanges[name](&s)
	}
	c := s.Clone()
	rv, cv := reflect.ValueOf(&s).Elem(), reflect.ValueOf(&c).Elem()
	for i := range rv.NumField() {
		f := cv.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() && f.Pointer() == rv.Field(i).Pointer() {
			t.Errorf("clone shares State.%s with its original", rv.Type().Field(i).Name)
		}
	}
}

// statesEqual is diffStates finding no difference, and the same version.
func statesEqual(a, b ownership.State) bool {
	return len(diffStates(a, b)) == 0 && a.Version == b.Version
}
