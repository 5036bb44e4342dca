package relay

import (
	"testing"

	"gjc.dev/reconciler/pkg/bus"
)

// The journal alone says where a session is: a later generation's root
// attempt forgets the place before it (so the new one is made, after a
// crash too), records of a place since replaced change nothing, and the
// texts a place was first made with are kept to name the next one.
func TestStatePlaceGenerations(t *testing.T) {
	rec := func(op, id, part, text, remote string) bus.Record {
		return bus.Record{Op: op, ID: id, Part: part, Session: "s", Text: text, Remote: remote}
	}
	first := []bus.Record{
		rec(bus.OpAttempt, "m1", "root", "**T** · session `s`", ""),
		rec(bus.OpDone, "m1", "root", "**T** · session `s`", "r0"),
		rec(bus.OpAttempt, "m1", "thread", "T", ""),
		rec(bus.OpDone, "m1", "thread", "T", "t0"),
	}
	for _, tc := range []struct {
		name string
		recs []bus.Record
		want sessionState
	}{
		{"first place", first, sessionState{root: "r0", thread: "t0", rootText: "**T** · session `s`", name: "T"}},
		{"made again, root attempted", append(first[:4:4],
			rec(bus.OpAttempt, "m4", "root:1", "**T** · session `s`\n"+continuedNote, "")),
			sessionState{gen: 1, rootText: "**T** · session `s`", name: "T"}},
		{"made again, root done", append(first[:4:4],
			rec(bus.OpAttempt, "m4", "root:1", "x", ""), rec(bus.OpDone, "m4", "root:1", "x", "r1")),
			sessionState{gen: 1, root: "r1", rootText: "**T** · session `s`", name: "T"}},
		{"made again, whole", append(first[:4:4],
			rec(bus.OpAttempt, "m4", "root:1", "x", ""), rec(bus.OpDone, "m4", "root:1", "x", "r1"),
			rec(bus.OpAttempt, "m4", "thread:1", "T", ""), rec(bus.OpDone, "m4", "thread:1", "T", "t1")),
			sessionState{gen: 1, root: "r1", thread: "t1", rootText: "**T** · session `s`", name: "T"}},
		{"compacted: dones only", []bus.Record{first[1], first[3],
			rec(bus.OpDone, "m4", "root:1", "x", "r1"), rec(bus.OpDone, "m4", "thread:1", "T", "t1")},
			sessionState{gen: 1, root: "r1", thread: "t1", rootText: "**T** · session `s`", name: "T"}},
		{"a late record of the place replaced", append(first[:4:4],
			rec(bus.OpDone, "m4", "root:1", "x", "r1"), rec(bus.OpDone, "m2", "thread", "T", "t0b")),
			sessionState{gen: 1, root: "r1", rootText: "**T** · session `s`", name: "T"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newState()
			for _, r := range tc.recs {
				s.apply(r)
			}
			if got := *s.session("s"); got != tc.want {
				t.Fatalf("session %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A replaced message's parts are edited only where the session is now:
// in a thread since deleted they cannot be reached, and are posted anew.
func TestReplacedOnlyInTheCurrentThread(t *testing.T) {
	r := &Relay{st: newState()}
	for _, rec := range []bus.Record{
		{Op: bus.OpDone, ID: "m1", Part: "thread", Session: "s", Remote: "t0"},
		{Op: bus.OpDone, ID: "m1", Part: "0", Session: "s", Thread: "t0", Remote: "p0"},
	} {
		r.st.apply(rec)
	}
	if _, replaced := r.sessionNow("s", "m1"); len(replaced) != 1 || replaced[0] != "p0" {
		t.Fatalf("in the same thread: replaced %v, want [p0]", replaced)
	}
	r.st.apply(bus.Record{Op: bus.OpDone, ID: "m2", Part: "root:1", Session: "s", Remote: "r1"})
	r.st.apply(bus.Record{Op: bus.OpDone, ID: "m2", Part: "thread:1", Session: "s", Remote: "t1"})
	if _, replaced := r.sessionNow("s", "m1"); replaced != nil {
		t.Fatalf("after the thread was made again: replaced %v, want none", replaced)
	}
}
