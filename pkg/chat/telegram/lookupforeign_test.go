package telegram

import (
	"testing"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/relay"
)

// Two sessions' posts both lost their answers (one kill): the probe of
// the one that lies higher edits the other's message on its way. It must
// neither take that message for its own (now or at a later look, by a
// fresh process) nor leave it so that its owner cannot find it: each
// part is found as itself, and each message reads as its part once both
// were looked up.
func TestLookupTellsTwoUncertainPartsApart(t *testing.T) {
	for _, forum := range []bool{true, false} {
		t.Run(map[bool]string{true: "topics", false: "replies"}[forum], func(t *testing.T) {
			f := startFake(t, forum)
			p := newPoster(t, f)
			known := map[string]bool{}
			place := func(key, title string) (thread, last string) {
				root := post(t, p, key+"/root", "", title+" · root")
				known[root] = true
				thread, err := p.StartThread(ctxFor(t), root, title)
				if err != nil {
					t.Fatal(err)
				}
				last = post(t, p, key+"/0", thread, title+": confirmed")
				known[thread], known[last] = true, true
				return thread, last
			}
			t1, after1 := place("a", "One")
			t2, after2 := place("b", "Two")
			// b's part lands first, below a's; neither answer arrives.
			b := relay.Part{Key: "b/1", Thread: t2, Text: "Two: lost answer"}
			a := relay.Part{Key: "a/1", Thread: t1, Text: "One: lost answer"}
			idB, idA := post(t, p, b.Key, b.Thread, b.Text), post(t, p, a.Key, a.Thread, a.Text)
			confirmed := func(id string) bool { return known[id] }
			a.Confirmed, b.Confirmed = confirmed, confirmed
			lookup := func(q *Poster, part relay.Part, after string) (string, bool, error) {
				return q.Lookup(ctxFor(t), part, after)
			}
			// a looks first, twice (killed before its done record), each
			// time by a fresh process; then b, done; then a again.
			for round, step := range []struct {
				part  relay.Part
				after string
				want  string
				done  bool
			}{{a, after1, idA, false}, {a, after1, idA, false}, {b, after2, idB, true}, {a, after1, idA, true}} {
				id, found, err := lookup(newPoster(t, f), step.part, step.after)
				if err == nil && (!found || id != step.want) {
					t.Fatalf("round %d: Lookup(%s) = %q %v, want %s", round, step.part.Key, id, found, step.want)
				}
				if err != nil && relay.KindOf(err) != relay.Blocked {
					t.Fatalf("round %d: Lookup(%s): %v", round, step.part.Key, err)
				}
				if found && step.done {
					known[id] = true
				}
			}
			sn := f.Snapshot()
			for id, text := range map[string]string{idA: a.Text, idB: b.Text} {
				if m, _ := sn.Message(faketelegram.DefaultChatID, id64(t, id)); m.Text != safeText(text) {
					t.Errorf("message %s reads %q, want %q", id, m.Text, text)
				}
			}
		})
	}
}

// Two sessions' parts may read alike (their closing lines): a message
// this process posted for one is never taken for the other's.
func TestLookupTellsAlikePartsApart(t *testing.T) {
	f := startFake(t, true)
	p := newPoster(t, f)
	place := func(key, title string) (thread, last string) {
		root := post(t, p, key+"/root", "", title+" · root")
		thread, err := p.StartThread(ctxFor(t), root, title)
		if err != nil {
			t.Fatal(err)
		}
		return thread, post(t, p, key+"/0", thread, title+": confirmed")
	}
	t1, after1 := place("a", "One")
	t2, _ := place("b", "Two")
	f.FailBefore("sendMessage", 1, faketelegram.FailCut)
	a := relay.Part{Key: "a/1", Thread: t1, Text: "Session closed."}
	if _, err := p.Post(ctxFor(t), a); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}
	theirs := post(t, p, "b/1", t2, "Session closed.")
	if id, found, err := p.Lookup(ctxFor(t), a, after1); err != nil || found {
		t.Fatalf("Lookup = %q %v %v, want not found (%s is the other session's)", id, found, err, theirs)
	}
}
