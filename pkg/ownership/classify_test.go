package ownership

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

func TestClassify(t *testing.T) {
	const pid, inc = 4242, "linux:98231"
	now := time.UnixMilli(1764450010000)
	boot := time.Unix(1764400000, 0)
	base := func() *State {
		s := stateOf(pid, inc)
		s.StartedAt, s.HeartbeatAt = now.UnixMilli()-60_000, now.UnixMilli()-3_000
		return &s
	}
	with := func(f func(*State)) Record {
		s := base()
		f(s)
		return Record{Present: true, State: s, Paths: tablePaths}
	}
	live := func() *fakeProbe {
		return &fakeProbe{alive: map[int]bool{pid: true}, inc: map[int]string{pid: inc}, boot: boot, now: now}
	}
	legacy := func() Record {
		s := base()
		s.Incarnation, s.Generation = LegacyIncarnation, nil
		return Record{Present: true, State: s, Legacy: true, Paths: tablePaths}
	}
	type want struct {
		class      Class
		health     Health
		signalable bool
		ambiguous  bool
		reason     string
	}
	cases := []struct {
		name  string
		rec   Record
		probe func(*fakeProbe)
		d     Desired
		want  want
	}{
		{"absent", Record{}, nil, desired, want{ClassAbsent, HealthNone, false, false, ReasonNoOwner}},
		{"malformed", Record{Present: true, Malformed: &MalformedError{Path: "state.json", Field: "pid", Err: errors.New("x")}}, nil, desired,
			want{ClassMalformed, HealthNone, false, true, ReasonMalformedOwnerRecord}},
		{"malformed directory", Record{Present: true, Malformed: &MalformedError{Path: "state.json", Err: platform.ErrNotPrivate}}, nil, desired,
			want{ClassMalformed, HealthNone, false, true, ReasonUnsafeDirectory}},
		{"legacy, pid dead", legacy(), func(p *fakeProbe) { p.alive[pid] = false }, desired, want{ClassStopped, HealthNone, false, false, ReasonLegacyOwnerExited}},
		{"legacy, pid live", legacy(), nil, desired, want{ClassMalformed, HealthNone, false, true, ReasonMalformedOwnerRecord}},
		{"legacy, liveness unknown", legacy(), func(p *fakeProbe) { p.aliveErr = map[int]error{pid: errors.New("EIO")} }, desired,
			want{ClassMalformed, HealthNone, false, true, ReasonMalformedOwnerRecord}},
		{"released, exited", with(func(s *State) { s.StoppedAt = gen(now.UnixMilli()) }), func(p *fakeProbe) { p.alive[pid] = false }, desired,
			want{ClassStopped, HealthNone, false, false, ReasonOwnerReleased}},
		{"released, still exiting", with(func(s *State) { s.StoppedAt = gen(now.UnixMilli()) }), nil, desired,
			want{ClassStopped, HealthNone, false, true, ReasonOwnerExiting}},
		{"pid dead", with(func(*State) {}), func(p *fakeProbe) { p.alive[pid] = false }, desired, want{ClassStopped, HealthNone, false, false, ReasonOwnerExited}},
		{"pid above the kernel maximum", with(func(*State) {}), func(p *fakeProbe) { p.aliveErr = map[int]error{pid: platform.ErrInvalidPID} }, desired,
			want{ClassStopped, HealthNone, false, false, ReasonOwnerExited}},
		{"pid reused", with(func(*State) {}), func(p *fakeProbe) { p.inc[pid] = "linux:1" }, desired, want{ClassStopped, HealthNone, false, false, ReasonPIDReused}},
		{"pid reused beats identity drift", with(func(s *State) { s.Identity = "other" }), func(p *fakeProbe) { p.inc[pid] = "linux:1" }, desired,
			want{ClassStopped, HealthNone, false, false, ReasonPIDReused}},
		{"pid reused beats foreign kind", with(func(s *State) { s.Kind = "slack" }), func(p *fakeProbe) { p.inc[pid] = "linux:1" }, desired,
			want{ClassStopped, HealthNone, false, false, ReasonPIDReused}},
		{"exited between Alive and Incarnation", with(func(*State) {}), func(p *fakeProbe) { p.inc = map[int]string{}; p.alive[pid] = false }, desired,
			want{ClassStopped, HealthNone, false, false, ReasonOwnerExited}},
		{"started before boot, pid dead", with(func(s *State) { s.StartedAt = boot.UnixMilli() - 3_600_000 }), func(p *fakeProbe) { p.alive[pid] = false }, desired,
			want{ClassStopped, HealthNone, false, false, ReasonOwnerExited}},
		{"started before boot, same pid and incarnation live", with(func(s *State) { s.StartedAt = boot.UnixMilli() - 3_600_000 }), nil, desired,
			want{ClassStopped, HealthNone, false, true, ReasonPreviousBoot}},
		{"started within boot rounding", with(func(s *State) { s.StartedAt = boot.UnixMilli() - 500 }), nil, desired,
			want{ClassCompatible, HealthHealthy, true, false, ReasonOwnerHealthy}},
		{"boot time unknown", with(func(*State) {}), func(p *fakeProbe) { p.bootErr = errors.New("no /proc/stat") }, desired,
			want{ClassCompatible, HealthHealthy, true, false, ReasonOwnerHealthy}},
		{"incarnation unprovable", with(func(*State) {}), func(p *fakeProbe) { p.incErr = map[int]error{pid: platform.ErrProcessGone} }, desired,
			want{ClassCompatible, HealthNone, false, true, ReasonOwnerUnverifiable}},
		{"incarnation unreadable", with(func(*State) {}), func(p *fakeProbe) { p.inc[pid] = "garbage" }, desired,
			want{ClassCompatible, HealthNone, false, true, ReasonOwnerUnverifiable}},
		{"liveness unknown", with(func(*State) {}), func(p *fakeProbe) { p.aliveErr = map[int]error{pid: errors.New("EIO")} }, desired,
			want{ClassCompatible, HealthNone, false, true, ReasonOwnerUnverifiable}},
		{"foreign", with(func(s *State) { s.Kind = "slack" }), nil, desired, want{ClassForeign, HealthNone, false, true, ReasonForeignOwner}},
		{"foreign beats drift", with(func(s *State) { s.Kind = "slack"; s.Identity = "x" }), nil, desired, want{ClassForeign, HealthNone, false, true, ReasonForeignOwner}},
		{"drifted", with(func(s *State) { s.Identity = "df9a87a1207d9253" }), nil, desired, want{ClassDrifted, HealthHealthy, true, false, ReasonIdentityDrift}},
		{"drifted beats newer", with(func(s *State) { s.Identity = "x"; s.Generation = gen(9) }), nil, desired, want{ClassDrifted, HealthHealthy, true, false, ReasonIdentityDrift}},
		{"drifted, unverifiable", with(func(s *State) { s.Identity = "x" }), func(p *fakeProbe) { p.incErr = map[int]error{pid: errors.New("EACCES")} }, desired,
			want{ClassDrifted, HealthNone, false, true, ReasonOwnerUnverifiable}},
		{"healthy", with(func(*State) {}), nil, desired, want{ClassCompatible, HealthHealthy, true, false, ReasonOwnerHealthy}},
		{"heartbeat exactly at the TTL", with(func(s *State) { s.HeartbeatAt = now.UnixMilli() - 20_000 }), nil, desired,
			want{ClassCompatible, HealthHealthy, true, false, ReasonOwnerHealthy}},
		{"hung", with(func(s *State) { s.HeartbeatAt = now.UnixMilli() - 20_001 }), nil, desired, want{ClassCompatible, HealthHung, true, false, ReasonOwnerHung}},
		{"hung and transport down", with(func(s *State) {
			s.HeartbeatAt = now.UnixMilli() - 60_000
			s.TransportHealthy = false
			s.TransportError = "x"
		}), nil, desired,
			want{ClassCompatible, HealthHung, true, false, ReasonOwnerHung}},
		{"starting", with(func(s *State) { s.TransportHealthy = false }), nil, desired, want{ClassCompatible, HealthStarting, true, false, ReasonOwnerStarting}},
		{"transport down", with(func(s *State) { s.TransportHealthy = false; s.TransportError = "gateway closed 1006" }), nil, desired,
			want{ClassCompatible, HealthTransportDown, true, false, ReasonTransportUnhealthy}},
		{"heartbeat within the clock skew ahead", with(func(s *State) { s.HeartbeatAt = now.UnixMilli() + 60_000 }), nil, desired,
			want{ClassCompatible, HealthHealthy, true, false, ReasonOwnerHealthy}},
		{"heartbeat past the clock skew ahead", with(func(s *State) { s.HeartbeatAt = now.UnixMilli() + 60_001 }), nil, desired,
			want{ClassCompatible, HealthHung, true, false, ReasonOwnerHung}},
		{"heartbeat a year ahead", with(func(s *State) { s.HeartbeatAt = now.UnixMilli() + 365*24*3600_000 }), nil, desired,
			want{ClassCompatible, HealthHung, true, false, ReasonOwnerHung}},
		{"newer, hung", with(func(s *State) { s.Generation = gen(8); s.HeartbeatAt = 0 }), nil, desired, want{ClassNewer, HealthHung, true, false, ReasonGenerationAhead}},
	}
	// The generation matrix, for both providers.
	for _, kind := range []string{"discord", "slack"} {
		d := Desired{Kind: kind, Identity: testIdentity, Generation: 7}
		for _, g := range []struct {
			name   string
			gen    *int64
			class  Class
			reason string
		}{
			{"lower", gen(6), ClassReplaceable, ReasonGenerationBehind},
			{"zero", gen(0), ClassReplaceable, ReasonGenerationBehind},
			{"equal", gen(7), ClassCompatible, ReasonOwnerHealthy},
			{"missing (legacy)", nil, ClassReplaceable, ReasonGenerationBehind},
			{"newer", gen(8), ClassNewer, ReasonGenerationAhead},
		} {
			rec := with(func(s *State) { s.Kind = kind; s.Generation = g.gen })
			cases = append(cases, struct {
				name  string
				rec   Record
				probe func(*fakeProbe)
				d     Desired
				want  want
			}{fmt.Sprintf("%s generation %s", kind, g.name), rec, nil, d, want{g.class, HealthHealthy, true, false, g.reason}})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			probe := live()
			if tc.probe != nil {
				tc.probe(probe)
			}
			c := classifyNow(tc.rec, tc.d, probe)
			got := want{c.Class, c.Health, c.Signalable, c.AmbiguouslyLive, c.Reason}
			if got != tc.want {
				t.Fatalf("Classify = %+v (%s)\n want %+v", got, c.Message, tc.want)
			}
			if c.Message == "" || strings.Contains(c.Message, "\n") {
				t.Fatalf("message %q is not one line", c.Message)
			}
			if c.Signalable && c.AmbiguouslyLive {
				t.Fatal("signalable and ambiguously live at once")
			}
		})
	}
}

func TestClassAndHealthNames(t *testing.T) {
	want := []string{"absent", "stopped", "malformed", "foreign", "drifted", "replaceable", "compatible", "newer"}
	for i, w := range want {
		if got := Class(i + 1).String(); got != w {
			t.Errorf("Class(%d) = %q, want %q", i+1, got, w)
		}
	}
	if Class(0).String() == "absent" {
		t.Error("the zero Class reads as absent")
	}
	if HealthHung.String() != "hung" || HealthNone.String() != "none" {
		t.Error("health names")
	}
}

// A boot ID decides the boot rule when the record has one: the wall clock
// stepped forward after boot (no battery-backed clock) must not make a live
// owner look like one from a previous boot, and a previous boot's record is
// recognised whatever its times say.
func TestClassifyBootID(t *testing.T) {
	const pid, inc = 4242, "linux:98231"
	now := time.UnixMilli(1764450010000)
	boot := time.Unix(1764400000, 0) // as read after the clock was stepped
	rec := func(bootID string, startedAt int64) Record {
		s := stateOf(pid, inc)
		s.BootID = bootID
		s.StartedAt, s.HeartbeatAt = startedAt, now.UnixMilli()-3_000
		return Record{Present: true, State: &s, Paths: tablePaths}
	}
	probe := &fakeProbe{alive: map[int]bool{pid: true}, inc: map[int]string{pid: inc}, boot: boot, now: now, bootID: "boot-b"}
	// Started "before boot" by the stepped clock, but in this boot.
	stepped := rec("boot-b", boot.UnixMilli()-3_600_000)
	if c := classifyNow(stepped, desired, probe); c.Class != ClassCompatible || !c.Signalable {
		t.Errorf("same boot ID, startedAt before the stepped boot time: %+v, want a signalable compatible owner", c)
	}
	// A previous boot's record, with times that look like this boot's.
	old := rec("boot-a", now.UnixMilli()-60_000)
	if c := classifyNow(old, desired, probe); c.Class != ClassStopped || c.Reason != ReasonPreviousBoot || c.Signalable {
		t.Errorf("other boot ID: %+v, want stopped, from a previous boot", c)
	}
	// Without a boot ID the time rule still applies.
	if c := classifyNow(rec("", boot.UnixMilli()-3_600_000), desired, probe); c.Reason != ReasonPreviousBoot {
		t.Errorf("no boot ID, started before boot: %+v, want previous boot", c)
	}
}
