package providertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/inbound"
)

// The decision cases (DESIGN 5, "Decisions"): an ask is posted with its
// buttons; the first click of the authorized user decides it once, and
// the question is edited to show the outcome, its buttons gone; a second
// click and a stranger's click add nothing and are answered privately;
// an ask with no decision expires; and the daemon killed at each step of
// a decision's landing neither loses it nor decides it twice, an
// undecided ask still working after the restart. The child relay runs
// the provider's transport, which is where clicks arrive.
func decisions(t *testing.T, s Subject, top string) {
	t.Run("FirstClickDecidesOnce", func(t *testing.T) { s.skipGap(t, top); decidesOnce(t, s, top) })
	t.Run("UndecidedAskExpires", func(t *testing.T) { s.skipGap(t, top); expires(t, s, top) })
	for _, step := range []string{inbound.StepStaged, inbound.StepRecorded, inbound.StepPublished} {
		t.Run("CrashAt/"+step, func(t *testing.T) { s.skipGap(t, top); decisionCrash(t, s, top, step) })
	}
}

const askID = "q01"

// askRig is one decision case's fake, bus and question.
type askRig struct {
	t     *testing.T
	f     Fake
	dir   string
	d     bus.Dirs
	env   []string
	place string // the session's thread
	msg   string // the message the buttons are on
}

// startAsk posts a session and an ask expiring in expires through a
// first child, which it returns running, and finds the ask's message.
func startAsk(ctx context.Context, t *testing.T, s Subject, top string, expires time.Duration) (*askRig, *relayChild) {
	f := s.Start(t, 0)
	dir, d := newBus(t)
	r := &askRig{t: t, f: f, dir: dir, d: d,
		env: append(childEnvOf(f), "RELAY_INBOUND_USER="+f.User(), "RELAY_TRANSPORT=1")}
	publish(t, d, []bus.Message{
		{ID: "m01", Session: "sess-ask", Event: bus.EventOpen, Title: "Decisions", Text: "Opening the session."},
		{ID: askID, Session: "sess-ask", Event: bus.EventAsk, Text: "May I run `make deploy`?",
			Choices: []string{"Approve", "Deny"}, ExpiresAt: bus.InboxTime(time.Now().Add(expires))},
	})
	c := startChild(t, top, dir, r.env...)
	if err := c.waitLines(ctx, "STARTED", transportReady); err != nil {
		t.Fatal(err)
	}
	if err := watchOutbox(t, d).waitEmpty(ctx, c); err != nil {
		t.Fatal(err)
	}
	place, err := sessionPlace(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	r.place = place
	if err := f.WaitFor(ctx, func() bool { return len(f.Asked(place)) == 1 }); err != nil {
		t.Fatalf("the ask is not in the thread with its buttons: %v; asked %q", err, f.Asked(place))
	}
	r.msg = f.Asked(place)[0]
	want := []string{bus.ChoiceData(askID, 0), bus.ChoiceData(askID, 1)}
	if got := f.Buttons(place, r.msg); expires > time.Minute && strings.Join(got, " ") != strings.Join(want, " ") {
		// (A short-lived ask may have expired already on a slow machine.)
		t.Fatalf("the ask's buttons carry %q, want %q", got, want)
	}
	return r, c
}

// click clicks choice i as user and returns the answer the clicker saw.
func (r *askRig) click(ctx context.Context, user string, i int) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return r.f.Click(cctx, r.place, r.msg, user, bus.ChoiceData(askID, i))
}

// decisions are the decision files of the session's inbox, and its
// stages.
func (r *askRig) decisions() (files []bus.InboxMessage, staged []string) {
	r.t.Helper()
	dir := filepath.Join(r.d.Inbox, "sess-ask")
	published, staged := inboxNames(r.t, dir)
	for _, name := range published {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			r.t.Fatal(err)
		}
		m, err := bus.DecodeInbox(data)
		if err != nil {
			r.t.Fatalf("inbox file %s: %v", name, err)
		}
		if m.IsDecision() {
			files = append(files, m)
		}
	}
	return files, staged
}

// waitDecided waits until the inbox holds one decision and no stage, and
// the question shows outcome with no buttons left.
func (r *askRig) waitDecided(ctx context.Context, c *relayChild, choice, user, outcome string) {
	r.t.Helper()
	w, err := dirwatch.New()
	if err != nil {
		r.t.Fatal(err)
	}
	defer w.Close()
	dir := filepath.Join(r.d.Inbox, "sess-ask")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		r.t.Fatal(err)
	}
	changes, stop, err := w.Subscribe(dir, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	defer stop()
	for {
		files, staged := r.decisions()
		if len(files) > 0 && len(staged) == 0 {
			break
		}
		select {
		case <-changes:
		case <-ctx.Done():
			r.t.Fatalf("no decision landed: files %+v, staged %v (%s)", files, staged, c.tail())
		}
	}
	files, _ := r.decisions()
	if len(files) != 1 || files[0].Ask != askID || files[0].Choice != choice || files[0].User != user || files[0].Session != "sess-ask" {
		r.t.Fatalf("decisions in the inbox: %+v, want one: %s by %q", files, choice, user)
	}
	if err := r.f.WaitFor(ctx, func() bool {
		return len(r.f.Buttons(r.place, r.msg)) == 0 && strings.Contains(r.f.Text(r.place, r.msg), outcome)
	}); err != nil {
		r.t.Fatalf("the question was not edited to show %q with its buttons gone: text %q, buttons %q (%s)",
			outcome, r.f.Text(r.place, r.msg), r.f.Buttons(r.place, r.msg), c.tail())
	}
	noneFailed(r.t, r.d)
}

func decidesOnce(t *testing.T, s Subject, top string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*crashWait)
	defer cancel()
	r, c := startAsk(ctx, t, s, top, time.Hour)

	refused := inbound.Verdict{Kind: inbound.Refused}.Answer()
	if got, err := r.click(ctx, r.f.Stranger(), 0); err != nil || got != refused {
		t.Fatalf("a stranger's click was answered %q (%v), want %q", got, err, refused)
	}
	if files, _ := r.decisions(); len(files) != 0 {
		t.Fatalf("a stranger's click landed %+v", files)
	}
	got, err := r.click(ctx, r.f.User(), 1)
	if err != nil || (got != "" && got != (inbound.Verdict{Kind: inbound.Decided, Choice: "Deny"}).Answer()) {
		t.Fatalf("the deciding click was answered %q (%v)", got, err)
	}
	r.waitDecided(ctx, c, "Deny", r.f.User(), "Decided: Deny, by ")
	if got, err := r.click(ctx, r.f.User(), 0); err != nil || !strings.HasPrefix(got, "Already decided: Deny") {
		t.Fatalf("a second click was answered %q (%v), want that it is already decided", got, err)
	}
	if got, err := r.click(ctx, r.f.Stranger(), 1); err != nil || got != refused {
		t.Fatalf("a stranger's click after the decision was answered %q (%v), want %q", got, err, refused)
	}
	r.waitDecided(ctx, c, "Deny", r.f.User(), "Decided: Deny, by ")
}

func expires(t *testing.T, s Subject, top string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*crashWait)
	defer cancel()
	r, c := startAsk(ctx, t, s, top, 10*time.Second)
	r.waitDecided(ctx, c, bus.ChoiceExpired, "", "Expired: no decision was made in time.")
	if got, err := r.click(ctx, r.f.User(), 0); err != nil || got != (inbound.Verdict{Kind: inbound.AlreadyDecided, Choice: bus.ChoiceExpired}).Answer() {
		t.Fatalf("a click after the expiry was answered %q (%v)", got, err)
	}
}

// decisionCrash kills the daemon at step of the click's landing, starts
// it again, and clicks again: the ask is decided exactly once, by the
// first click when its record was durable, else by the second.
func decisionCrash(t *testing.T, s Subject, top, step string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*crashWait)
	defer cancel()
	r, first := startAsk(ctx, t, s, top, time.Hour)
	first.kill(t)

	crashed := startChild(t, top, r.dir, append(r.env, "RELAY_CRASH_AT="+step, "RELAY_CRASH_KEY="+askID, "RELAY_CRASH_MODE=crash")...)
	if err := crashed.waitLines(ctx, "STARTED", transportReady); err != nil {
		t.Fatal(err)
	}
	answered := make(chan error, 1)
	go func() {
		// The clicker gets no answer: the daemon dies before it.
		_, err := r.click(ctx, r.f.User(), 0)
		answered <- err
	}()
	if _, err := crashed.waitLine(ctx, "STEP "+step+" "+askID); err != nil {
		t.Fatal(err)
	}
	crashed.kill(t)
	if err := <-answered; err == nil {
		t.Fatalf("the click was answered although the daemon died at %s before answering", step)
	}

	second := startChild(t, top, r.dir, r.env...)
	if err := second.waitLines(ctx, "STARTED", transportReady); err != nil {
		t.Fatal(err)
	}
	got, err := r.click(ctx, r.f.User(), 1)
	if err != nil {
		t.Fatalf("the click after the restart: %v (%s)", err, second.tail())
	}
	// Once the first click's record was durable the ask is decided for
	// good: Approve. Before (staged only), nothing was decided and the
	// ask was still live: the second click decides, unless the service
	// delivered the unanswered first click again (Telegram keeps an
	// update until it is confirmed) and it decided first.
	choice := "Approve"
	if step == inbound.StepStaged && !strings.HasPrefix(got, "Already decided: ") {
		choice = "Deny"
		if got != "" && got != (inbound.Verdict{Kind: inbound.Decided, Choice: "Deny"}).Answer() {
			t.Fatalf("the click after the restart was answered %q, want that it decided", got)
		}
	} else if !strings.HasPrefix(got, "Already decided: Approve") {
		t.Fatalf("the click after the restart was answered %q, want that the first click decided (Approve)", got)
	}
	r.waitDecided(ctx, second, choice, r.f.User(), "Decided: "+choice+", by ")
}
