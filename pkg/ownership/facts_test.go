package ownership

import (
	"errors"
	"testing"
	"time"
)

// Classify is pure: the same record and facts give the same verdict, with
// no probe anywhere. These are the facts a store of another kind (a
// fleet's) would hand it.
func TestClassifyJudgesFactsAsValues(t *testing.T) {
	now := time.UnixMilli(1764450010000)
	boot := BootFacts{Time: time.Unix(1764400000, 0), TimeKnown: true, ID: "boot-a"}
	s := State{Version: 1, Kind: "discord", PID: 4242, OwnerID: "o-1", Identity: "id-1", Incarnation: "linux:98231",
		StartedAt: now.UnixMilli() - 60_000, HeartbeatAt: now.UnixMilli() - 3_000, TransportHealthy: true, Generation: gen(7), BootID: "boot-a"}
	rec := Record{Present: true, State: &s, Paths: PathsFor("/agent", "bot")}
	desired := Desired{Kind: "discord", Identity: "id-1", Generation: 7}
	live := ProcessFacts{Alive: true, Equal: true, Current: s.Incarnation}
	cases := []struct {
		name       string
		facts      Facts
		class      Class
		reason     string
		signalable bool
		ambiguous  bool
	}{
		{"proved owner, fresh heartbeat", Facts{Process: live, Boot: boot, Now: now}, ClassCompatible, ReasonOwnerHealthy, true, false},
		{"dead", Facts{Boot: boot, Now: now}, ClassStopped, ReasonOwnerExited, false, false},
		{"liveness unknown is never dead", Facts{Process: ProcessFacts{Alive: true, Err: errors.New("EIO")}, Boot: boot, Now: now},
			ClassCompatible, ReasonOwnerUnverifiable, false, true},
		{"PID reused", Facts{Process: ProcessFacts{Alive: true, Differs: true, Current: "linux:1"}, Boot: boot, Now: now},
			ClassStopped, ReasonPIDReused, false, false},
		{"another process", Facts{Process: ProcessFacts{Alive: true, NotDaemon: &NotDaemonError{PID: 4242, Why: "a sleep"}}, Boot: boot, Now: now},
			ClassStopped, ReasonNotThisDaemon, false, false},
		{"command line unreadable", Facts{Process: ProcessFacts{Alive: true, Unexaminable: true, Err: errors.New("EACCES")}, Boot: boot, Now: now},
			ClassCompatible, ReasonOwnerUnverifiable, false, true},
		{"another boot", Facts{Process: live, Boot: BootFacts{Time: boot.Time, TimeKnown: true, ID: "boot-b"}, Now: now},
			ClassStopped, ReasonPreviousBoot, false, true}, // stale, but a live PID it may now name is not proved another
		{"hung", Facts{Process: live, Boot: boot, Now: now.Add(HeartbeatTTL + time.Second)}, ClassCompatible, ReasonOwnerHung, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Classify(rec, desired, tc.facts)
			if c.Class != tc.class || c.Reason != tc.reason || c.Signalable != tc.signalable || c.AmbiguouslyLive != tc.ambiguous {
				t.Fatalf("Classify = %v/%s signalable=%v ambiguous=%v (%s); want %v/%s signalable=%v ambiguous=%v",
					c.Class, c.Reason, c.Signalable, c.AmbiguouslyLive, c.Message, tc.class, tc.reason, tc.signalable, tc.ambiguous)
			}
			if again := Classify(rec, desired, tc.facts); again != c {
				t.Fatalf("Classify is not a function of its inputs: %+v then %+v", c, again)
			}
		})
	}
}
