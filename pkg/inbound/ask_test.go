package inbound

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

func askMsg(id string, expires time.Time) bus.Message {
	return bus.Message{ID: id, Session: "s1", Event: bus.EventAsk, Title: "Deploy", Text: "May I deploy?",
		Choices: []string{"Yes", "No"}, ExpiresAt: bus.InboxTime(expires)}.WithDefaults()
}

// posted puts m in sent/ as the relay leaves it, and hands it over.
func (r *rig) posted(m bus.Message, remote string) {
	r.t.Helper()
	if err := bus.EnsureDirs(r.d); err != nil {
		r.t.Fatal(err)
	}
	data, err := bus.Encode(m)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.d.Sent, m.ID+".json"), data, 0o600); err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.in.AskPosted(ctx, m, "T1", remote); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) click(user, data, message string) Verdict {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := r.in.Decide(ctx, Click{ID: "c-" + user, Place: "T1", Message: message, User: user, Name: strings.ToUpper(user[:1]) + user[1:], Data: data, Time: time.Now()})
	if err != nil {
		r.t.Fatalf("Decide: %v", err)
	}
	return v
}

// decisions returns the decisions in the rig's inbox, by ask id.
func (r *rig) decisions() map[string]bus.InboxMessage {
	out := map[string]bus.InboxMessage{}
	for name, data := range r.files() {
		m, err := bus.DecodeInbox([]byte(data))
		if err != nil {
			r.t.Fatalf("%s: %v", name, err)
		}
		if m.IsDecision() {
			if _, twice := out[m.Ask]; twice {
				r.t.Fatalf("ask %s decided twice in the inbox", m.Ask)
			}
			out[m.Ask] = m
		}
	}
	return out
}

func (r *rig) outcome(askID string) (bus.Message, bool) {
	m, err := bus.Read(filepath.Join(r.d.Outbox, bus.OutcomeID(askID)+".json"))
	return m, err == nil
}

func TestFirstAuthorizedClickDecidesOnce(t *testing.T) {
	r := newRig(t)
	r.start()
	ask := askMsg("01JASK", time.Now().Add(time.Hour))
	r.posted(ask, "R1")
	r.posted(ask, "R1") // handed again after a restart of the relay: nothing new

	tests := []struct {
		name, user, data, message string
		want                      Verdict
	}{
		{"a stranger", "mallory", bus.ChoiceData("01JASK", 0), "R1", Verdict{Kind: Refused}},
		{"no ask of ours", "alice", bus.ChoiceData("01JOTHER", 0), "R1", Verdict{Kind: Unknown}},
		{"a forged index", "alice", bus.ChoiceData("01JASK", 2), "R1", Verdict{Kind: Unknown}},
		{"another message", "alice", bus.ChoiceData("01JASK", 0), "R2", Verdict{Kind: Unknown}},
		{"garbage", "alice", "01JASK:x", "R1", Verdict{Kind: Unknown}},
		{"alice decides", "alice", bus.ChoiceData("01JASK", 1), "R1", Verdict{Kind: Decided, Choice: "No", By: "Alice"}},
		{"alice again", "alice", bus.ChoiceData("01JASK", 0), "R1", Verdict{Kind: AlreadyDecided, Choice: "No", By: "Alice"}},
		{"a stranger after", "mallory", bus.ChoiceData("01JASK", 0), "R1", Verdict{Kind: Refused}},
	}
	for _, tt := range tests {
		if got := r.click(tt.user, tt.data, tt.message); got != tt.want {
			t.Errorf("%s: verdict %+v, want %+v", tt.name, got, tt.want)
		}
	}
	d := r.decisions()
	if len(d) != 1 || d["01JASK"].Choice != "No" || d["01JASK"].User != "alice" || d["01JASK"].Session != "s1" {
		t.Fatalf("inbox decisions %+v, want one: No by alice", d)
	}
	waitUntil(t, "the outcome written", func() bool { _, ok := r.outcome("01JASK"); return ok })
	out, ok := r.outcome("01JASK")
	if !ok || out.Replaces != "01JASK" || out.Title != "Deploy" || out.Text != "May I deploy?\n\nDecided: No, by Alice" {
		t.Fatalf("outcome %+v (%v), want the question edited with who decided what", out, ok)
	}
	h := r.in.Health()
	if h.Asks != (AskCounts{Open: 0, Decided: 1, Refused: 2, Unknown: 4}) {
		t.Fatalf("counts %+v", h.Asks)
	}
}

// A restart neither loses an undecided ask nor decides a decided one
// again.
func TestAskOutlivesARestart(t *testing.T) {
	r := newRig(t)
	r.start()
	r.posted(askMsg("01JA", time.Now().Add(time.Hour)), "R1")
	r.posted(askMsg("01JB", time.Now().Add(time.Hour)), "R2")
	if v := r.click("alice", bus.ChoiceData("01JA", 0), "R1"); v.Kind != Decided {
		t.Fatalf("verdict %+v", v)
	}
	r.stop()
	r.start()
	waitUntil(t, "one ask open after the restart", func() bool { return r.in.Health().Asks.Open == 1 })
	if v := r.click("alice", bus.ChoiceData("01JA", 1), "R1"); v != (Verdict{Kind: AlreadyDecided, Choice: "Yes", By: "Alice"}) {
		t.Fatalf("a decided ask after a restart: %+v", v)
	}
	if v := r.click("alice", bus.ChoiceData("01JB", 1), "R2"); v.Kind != Decided {
		t.Fatalf("an undecided ask after a restart: %+v", v)
	}
	if d := r.decisions(); len(d) != 2 || d["01JA"].Choice != "Yes" || d["01JB"].Choice != "No" {
		t.Fatalf("decisions %+v", d)
	}
}

func TestUndecidedAskExpires(t *testing.T) {
	r := newRig(t)
	r.start()
	r.posted(askMsg("01JX", time.Now().Add(300*time.Millisecond)), "R1")
	waitUntil(t, "the ask expired", func() bool { _, ok := r.decisions()["01JX"]; return ok })
	d := r.decisions()["01JX"]
	if d.Choice != bus.ChoiceExpired || d.User != "" {
		t.Fatalf("decision %+v, want expired by no one", d)
	}
	waitUntil(t, "the outcome written", func() bool { _, ok := r.outcome("01JX"); return ok })
	if out, _ := r.outcome("01JX"); !strings.HasSuffix(out.Text, "Expired: no decision was made in time.") {
		t.Fatalf("outcome %q", out.Text)
	}
	if v := r.click("alice", bus.ChoiceData("01JX", 0), "R1"); v != (Verdict{Kind: AlreadyDecided, Choice: bus.ChoiceExpired}) {
		t.Fatalf("a click after expiry: %+v", v)
	}
	if h := r.in.Health(); h.Asks.Expired != 1 || h.Asks.Open != 0 {
		t.Fatalf("counts %+v", h.Asks)
	}
}

// A decision recorded whose file could not be published is decided for
// good: the click is not decided again, and the file appears (here at
// the next start).
func TestRecordedDecisionIsPublishedLater(t *testing.T) {
	r := newRig(t)
	r.keep = func(string, string) (bool, error) { return false, errors.New("fleet unreachable") }
	r.start()
	r.posted(askMsg("01JA", time.Now().Add(time.Hour)), "R1")
	if v := r.click("alice", bus.ChoiceData("01JA", 0), "R1"); v.Kind != Decided {
		t.Fatalf("verdict %+v", v)
	}
	if d := r.decisions(); len(d) != 0 {
		t.Fatalf("published %+v although keeping failed", d)
	}
	if v := r.click("alice", bus.ChoiceData("01JA", 1), "R1"); v.Kind != AlreadyDecided || v.Choice != "Yes" {
		t.Fatalf("second click %+v", v)
	}
	r.stop()
	r.keep = nil
	r.start()
	waitUntil(t, "the decision published and its outcome written", func() bool {
		_, ok := r.outcome("01JA")
		return len(r.decisions()) == 1 && ok
	})
}

// closedSessions knows T1 as s1's thread, but s1 is closed.
type closedSessions struct{ fakeSessions }

func (closedSessions) OpenPlaces() []Place { return nil }

// An ask decided after its session closed writes no outcome (a closed
// session takes no message, and it would only fail): the decision is in
// the inbox, and nothing is left to retry.
func TestDecisionAfterCloseWritesNoOutcome(t *testing.T) {
	r := newRig(t)
	r.sessions = closedSessions{fakeSessions{places: map[string]string{"T1": "s1"}}}
	r.start()
	r.posted(askMsg("01JC", time.Now().Add(time.Hour)), "R1")
	if v := r.click("alice", bus.ChoiceData("01JC", 0), "R1"); v.Kind != Decided {
		t.Fatalf("verdict %+v", v)
	}
	if len(r.decisions()) != 1 {
		t.Fatal("the decision did not land")
	}
	waitUntil(t, "the outcome settled", func() bool {
		r.in.mu.Lock()
		defer r.in.mu.Unlock()
		return r.in.asks["01JC"].outcome
	})
	if _, ok := r.outcome("01JC"); ok {
		t.Fatal("an outcome was written for a closed session")
	}
}

// The journal's first decision of an ask is the one: a second (which
// only a decision in doubt appended again can make, and then the same)
// never replaces it.
func TestReplayKeepsTheFirstDecision(t *testing.T) {
	asks := map[string]*askState{}
	ask := bus.InboundRecord{Op: bus.OpAsk, ID: "q", Place: "T1", Session: "s1", Remote: "R1", Choices: []string{"Yes", "No"}, At: 1}
	first := bus.InboundRecord{Op: bus.OpDecided, ID: "q", Place: "T1", Session: "s1", File: "0000000000002-q.json", Choice: "Yes", User: "alice", At: 2}
	second := first
	second.Choice, second.File, second.At = "No", "0000000000003-q.json", 3
	for _, r := range []bus.InboundRecord{ask, first, second} {
		replayAsk(asks, r)
	}
	if d := asks["q"].decided; d == nil || d.Choice != "Yes" {
		t.Fatalf("replayed decision %+v, want the first (Yes)", d)
	}
}

// A decision whose append failed may be durable: the next attempt to
// decide, whoever clicks what, appends that same decision again.
func TestDecisionInDoubtIsTheOnlyOne(t *testing.T) {
	r := newRig(t)
	r.start()
	r.posted(askMsg("01JD", time.Now().Add(time.Hour)), "R1")
	r.in.mu.Lock()
	a := r.in.asks["01JD"]
	tried := bus.InboundRecord{Op: bus.OpDecided, ID: "01JD", Place: "T1", Session: "s1", File: "0000000000042-01JD.json",
		Choice: "No", User: "alice", Name: "Alice", At: 42}
	a.tried = &tried
	r.in.mu.Unlock()
	if err := bus.EnsureDirs(r.d); err != nil {
		t.Fatal(err)
	}
	if _, err := bus.StageInbox(r.d, bus.Decision("s1", "01JD", "No", "alice", time.UnixMilli(42))); err != nil {
		t.Fatal(err)
	}
	if v := r.click("alice", bus.ChoiceData("01JD", 0), "R1"); v != (Verdict{Kind: AlreadyDecided, Choice: "No", By: "Alice"}) {
		t.Fatalf("a click on an ask with a decision in doubt: %+v, want the one in doubt", v)
	}
	if d := r.decisions()["01JD"]; d.Choice != "No" {
		t.Fatalf("decision %+v", d)
	}
}
