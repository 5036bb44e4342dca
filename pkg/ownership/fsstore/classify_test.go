package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/spec"
)

func TestClassify(t *testing.T) {
	const pid, inc = 4242, "linux:98231"
	now := time.UnixMilli(1764450010000)
	boot := time.Unix(1764400000, 0)
	base := func() *ownership.State {
		s := stateOf(pid, inc)
		s.StartedAt, s.HeartbeatAt = now.UnixMilli()-60_000, now.UnixMilli()-3_000
		return &s
	}
	with := func(f func(*ownership.State)) ownership.Record {
		s := base()
		f(s)
		return ownership.Record{Present: true, State: s, Paths: tablePaths}
	}
	live := func() *fakeProbe {
		return &fakeProbe{alive: map[int]bool{pid: true}, inc: map[int]string{pid: inc}, boot: boot, now: now}
	}
	legacy := func() ownership.Record {
		s := base()
		s.Incarnation, s.Generation = ownership.LegacyIncarnation, spec.NoGeneration
		return ownership.Record{Present: true, State: s, Legacy: true, Paths: tablePaths}
	}
	type want struct {
		class      ownership.Class
		health     ownership.Health
		signalable bool
		ambiguous  bool
		reason     string
	}
	cases := []struct {
		name  string
		rec   ownership.Record
		probe func(*fakeProbe)
		d     ownership.Desired
		want  want
	}{
		{"absent", ownership.Record{}, nil, desired, want{ownership.ClassAbsent, ownership.HealthNone, false, false, ownership.ReasonNoOwner}},
		{"malformed", ownership.Record{Present: true, Malformed: &ownership.MalformedError{Path: "state.json", Field: "pid", Err: errors.New("x")}}, nil, desired,
			want{ownership.ClassMalformed, ownership.HealthNone, false, true, ownership.ReasonMalformedOwnerRecord}},
		{"malformed directory", ownership.Record{Present: true, Malformed: &ownership.MalformedError{Path: "state.json", Err: checkPrivateErr()}}, nil, desired,
			want{ownership.ClassMalformed, ownership.HealthNone, false, true, ownership.ReasonUnsafeDirectory}},
		{"legacy, pid dead", legacy(), func(p *fakeProbe) { p.alive[pid] = false }, desired, want{ownership.ClassStopped, ownership.HealthNone, false, false, ownership.ReasonLegacyOwnerExited}},
		{"legacy, pid live", legacy(), nil, desired, want{ownership.ClassMalformed, ownership.HealthNone, false, true, ownership.ReasonMalformedOwnerRecord}},
		{"legacy, liveness unknown", legacy(), func(p *fakeProbe) { p.aliveErr = map[int]error{pid: errors.New("EIO")} }, desired,
			want{ownership.ClassMalformed, ownership.HealthNone, false, true, ownership.ReasonMalformedOwnerRecord}},
		{"released, exited", with(func(s *ownership.State) { s.StoppedAt = ms(now.UnixMilli()) }), func(p *fakeProbe) { p.alive[pid] = false }, desired,
			want{ownership.ClassStopped, ownership.HealthNone, false, false, ownership.ReasonOwnerReleased}},
		{"released, still exiting", with(func(s *ownership.State) { s.StoppedAt = ms(now.UnixMilli()) }), nil, desired,
			want{ownership.ClassStopped, ownership.HealthNone, false, true, ownership.ReasonOwnerExiting}},
		{"pid dead", with(func(*ownership.State) {}), func(p *fakeProbe) { p.alive[pid] = false }, desired, want{ownership.ClassStopped, ownership.HealthNone, false, false, ownership.ReasonOwnerExited}},
		{"pid above the kernel maximum", with(func(*ownership.State) {}), func(p *fakeProbe) { p.aliveErr = map[int]error{pid: platform.ErrInvalidPID} }, desired,
			want{ownership.ClassStopped, ownership.HealthNone, false, false, ownership.ReasonOwnerExited}},
		{"pid reused", with(func(*ownership.State) {}), func(p *fakeProbe) { p.inc[pid] = "linux:1" }, desired, want{ownership.ClassStopped, ownership.HealthNone, false, false, ownership.ReasonPIDReused}},
		{"pid reused beats identity drift", with(func(s *ownership.State) { s.Identity = "other" }), func(p *fakeProbe) { p.inc[pid] = "linux:1" }, desired,
			want{ownership.ClassStopped, ownership.HealthNone, false, false, ownership.ReasonPIDReused}},
		{"pid reused beats foreign kind", with(func(s *ownership.State) { s.Kind = "slack" }), func(p *fakeProbe) { p.inc[pid] = "linux:1" }, desired,
			want{ownership.ClassStopped, ownership.HealthNone, false, false, ownership.ReasonPIDReused}},
		{"exited between Alive and Incarnation", with(func(*ownership.State) {}), func(p *fakeProbe) { p.inc = map[int]string{}; p.alive[pid] = false }, desired,
			want{ownership.ClassStopped, ownership.HealthNone, false, false, ownership.ReasonOwnerExited}},
		{"started before boot, pid dead", with(func(s *ownership.State) { s.StartedAt = boot.UnixMilli() - 3_600_000 }), func(p *fakeProbe) { p.alive[pid] = false }, desired,
			want{ownership.ClassStopped, ownership.HealthNone, false, false, ownership.ReasonOwnerExited}},
		{"started before boot, same pid and incarnation live", with(func(s *ownership.State) { s.StartedAt = boot.UnixMilli() - 3_600_000 }), nil, desired,
			want{ownership.ClassStopped, ownership.HealthNone, false, true, ownership.ReasonPreviousBoot}},
		{"started within boot rounding", with(func(s *ownership.State) { s.StartedAt = boot.UnixMilli() - 500 }), nil, desired,
			want{ownership.ClassCompatible, ownership.HealthHealthy, true, false, ownership.ReasonOwnerHealthy}},
		{"boot time unknown", with(func(*ownership.State) {}), func(p *fakeProbe) { p.bootErr = errors.New("no /proc/stat") }, desired,
			want{ownership.ClassCompatible, ownership.HealthHealthy, true, false, ownership.ReasonOwnerHealthy}},
		{"incarnation unprovable", with(func(*ownership.State) {}), func(p *fakeProbe) { p.incErr = map[int]error{pid: platform.ErrProcessGone} }, desired,
			want{ownership.ClassCompatible, ownership.HealthNone, false, true, ownership.ReasonOwnerUnverifiable}},
		{"incarnation unreadable", with(func(*ownership.State) {}), func(p *fakeProbe) { p.inc[pid] = "garbage" }, desired,
			want{ownership.ClassCompatible, ownership.HealthNone, false, true, ownership.ReasonOwnerUnverifiable}},
		{"liveness unknown", with(func(*ownership.State) {}), func(p *fakeProbe) { p.aliveErr = map[int]error{pid: errors.New("EIO")} }, desired,
			want{ownership.ClassCompatible, ownership.HealthNone, false, true, ownership.ReasonOwnerUnverifiable}},
		{"foreign", with(func(s *ownership.State) { s.Kind = "slack" }), nil, desired, want{ownership.ClassForeign, ownership.HealthNone, false, true, ownership.ReasonForeignOwner}},
		{"foreign beats drift", with(func(s *ownership.State) { s.Kind = "slack"; s.Identity = "x" }), nil, desired, want{ownership.ClassForeign, ownership.HealthNone, false, true, ownership.ReasonForeignOwner}},
		{"drifted", with(func(s *ownership.State) { s.Identity = "df9a87a1207d9253" }), nil, desired, want{ownership.ClassDrifted, ownership.HealthHealthy, true, false, ownership.ReasonIdentityDrift}},
		{"drifted beats newer", with(func(s *ownership.State) { s.Identity = "x"; s.Generation = gen(9) }), nil, desired, want{ownership.ClassDrifted, ownership.HealthHealthy, true, false, ownership.ReasonIdentityDrift}},
		{"drifted, unverifiable", with(func(s *ownership.State) { s.Identity = "x" }), func(p *fakeProbe) { p.incErr = map[int]error{pid: errors.New("EACCES")} }, desired,
			want{ownership.ClassDrifted, ownership.HealthNone, false, true, ownership.ReasonOwnerUnverifiable}},
		{"healthy", with(func(*ownership.State) {}), nil, desired, want{ownership.ClassCompatible, ownership.HealthHealthy, true, false, ownership.ReasonOwnerHealthy}},
		{"heartbeat exactly at the TTL", with(func(s *ownership.State) { s.HeartbeatAt = now.UnixMilli() - 20_000 }), nil, desired,
			want{ownership.ClassCompatible, ownership.HealthHealthy, true, false, ownership.ReasonOwnerHealthy}},
		{"hung", with(func(s *ownership.State) { s.HeartbeatAt = now.UnixMilli() - 20_001 }), nil, desired, want{ownership.ClassCompatible, ownership.HealthHung, true, false, ownership.ReasonOwnerHung}},
		{"hung and transport down", with(func(s *ownership.State) {
			s.HeartbeatAt = now.UnixMilli() - 60_000
			s.TransportHealthy = false
			s.TransportError = "x"
		}), nil, desired,
			want{ownership.ClassCompatible, ownership.HealthHung, true, false, ownership.ReasonOwnerHung}},
		{"starting", with(func(s *ownership.State) { s.TransportHealthy = false }), nil, desired, want{ownership.ClassCompatible, ownership.HealthStarting, true, false, ownership.ReasonOwnerStarting}},
		{"transport down", with(func(s *ownership.State) { s.TransportHealthy = false; s.TransportError = "gateway closed 1006" }), nil, desired,
			want{ownership.ClassCompatible, ownership.HealthTransportDown, true, false, ownership.ReasonTransportUnhealthy}},
		{"heartbeat within the clock skew ahead", with(func(s *ownership.State) { s.HeartbeatAt = now.UnixMilli() + 60_000 }), nil, desired,
			want{ownership.ClassCompatible, ownership.HealthHealthy, true, false, ownership.ReasonOwnerHealthy}},
		{"heartbeat past the clock skew ahead", with(func(s *ownership.State) { s.HeartbeatAt = now.UnixMilli() + 60_001 }), nil, desired,
			want{ownership.ClassCompatible, ownership.HealthHung, true, false, ownership.ReasonOwnerHung}},
		{"heartbeat a year ahead", with(func(s *ownership.State) { s.HeartbeatAt = now.UnixMilli() + 365*24*3600_000 }), nil, desired,
			want{ownership.ClassCompatible, ownership.HealthHung, true, false, ownership.ReasonOwnerHung}},
		{"newer, hung", with(func(s *ownership.State) { s.Generation = gen(8); s.HeartbeatAt = 0 }), nil, desired, want{ownership.ClassNewer, ownership.HealthHung, true, false, ownership.ReasonGenerationAhead}},
	}
	// The generation matrix, for both providers.
	for _, kind := range []string{"discord", "slack"} {
		d := ownership.Desired{Kind: kind, Identity: testIdentity, Generation: 7}
		for _, g := range []struct {
			name   string
			gen    spec.OptGeneration
			class  ownership.Class
			reason string
		}{
			{"lower", gen(6), ownership.ClassReplaceable, ownership.ReasonGenerationBehind},
			{"zero", gen(0), ownership.ClassReplaceable, ownership.ReasonGenerationBehind},
			{"equal", gen(7), ownership.ClassCompatible, ownership.ReasonOwnerHealthy},
			{"missing (legacy)", spec.NoGeneration, ownership.ClassReplaceable, ownership.ReasonGenerationBehind},
			{"newer", gen(8), ownership.ClassNewer, ownership.ReasonGenerationAhead},
		} {
			rec := with(func(s *ownership.State) { s.Kind = kind; s.Generation = g.gen })
			cases = append(cases, struct {
				name  string
				rec   ownership.Record
				probe func(*fakeProbe)
				d     ownership.Desired
				want  want
			}{fmt.Sprintf("%s generation %s", kind, g.name), rec, nil, d, want{g.class, ownership.HealthHealthy, true, false, g.reason}})
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
		if got := ownership.Class(i + 1).String(); got != w {
			t.Errorf("Class(%d) = %q, want %q", i+1, got, w)
		}
	}
	if ownership.Class(0).String() == "absent" {
		t.Error("the zero Class reads as absent")
	}
	if ownership.HealthHung.String() != "hung" || ownership.HealthNone.String() != "none" {
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
	rec := func(bootID string, startedAt int64) ownership.Record {
		s := stateOf(pid, inc)
		s.BootID = bootID
		s.StartedAt, s.HeartbeatAt = startedAt, now.UnixMilli()-3_000
		return ownership.Record{Present: true, State: &s, Paths: tablePaths}
	}
	probe := &fakeProbe{alive: map[int]bool{pid: true}, inc: map[int]string{pid: inc}, boot: boot, now: now, bootID: "boot-b"}
	// Started "before boot" by the stepped clock, but in this boot.
	stepped := rec("boot-b", boot.UnixMilli()-3_600_000)
	if c := classifyNow(stepped, desired, probe); c.Class != ownership.ClassCompatible || !c.Signalable {
		t.Errorf("same boot ID, startedAt before the stepped boot time: %+v, want a signalable compatible owner", c)
	}
	// A previous boot's record, with times that look like this boot's.
	old := rec("boot-a", now.UnixMilli()-60_000)
	if c := classifyNow(old, desired, probe); c.Class != ownership.ClassStopped || c.Reason != ownership.ReasonPreviousBoot || c.Signalable {
		t.Errorf("other boot ID: %+v, want stopped, from a previous boot", c)
	}
	// Without a boot ID the time rule still applies.
	if c := classifyNow(rec("", boot.UnixMilli()-3_600_000), desired, probe); c.Reason != ownership.ReasonPreviousBoot {
		t.Errorf("no boot ID, started before boot: %+v, want previous boot", c)
	}
}

// checkPrivateErr is the error checkPrivate gives for a directory that is
// not private.
func checkPrivateErr() error { return marked(platform.ErrNotPrivate) }
