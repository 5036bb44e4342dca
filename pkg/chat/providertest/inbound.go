package providertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/inbound"
)

// The inbound crash matrix: the process SIGKILLed at each step of a
// reply's landing (its file staged, its landed record durable, the file
// published); a new process then finishes. The reply is in the inbox
// exactly once, byte for byte what it was sent as, no stage is left, and
// it has one 👀.
func inboundCrashMatrix(t *testing.T, s Subject, top string) {
	for _, step := range []string{inbound.StepStaged, inbound.StepRecorded, inbound.StepPublished} {
		t.Run(step, func(t *testing.T) { runInboundCrash(t, s, top, step) })
	}
}

func runInboundCrash(t *testing.T, s Subject, top, step string) {
	ctx, cancel := context.WithTimeout(context.Background(), crashWait)
	defer cancel()
	ir := s.Start(t, 0)
	dir, d := newBus(t)
	open := crashSession(s.render(t).Limit)[0]
	publish(t, d, []bus.Message{open})
	env := append(childEnvOf(ir), "RELAY_INBOUND_USER="+ir.User())

	// A first process opens the session; the reply comes while none runs.
	first := startChild(t, top, dir, env...)
	place, err := sessionPlace(ctx, ir)
	if err != nil {
		t.Fatalf("no thread: %v", err)
	}
	if err := watchOutbox(t, d).waitEmpty(ctx, first); err != nil {
		t.Fatal(err)
	}
	first.kill(t)
	const text = "yes, <ship> it & tell me"
	id, err := ir.Reply(place, text)
	if err != nil {
		t.Fatal(err)
	}

	crashed := startChild(t, top, dir, append(env, "RELAY_CRASH_AT="+step, "RELAY_CRASH_KEY="+id, "RELAY_CRASH_MODE=crash")...)
	if _, err := crashed.waitLine(ctx, "STEP "+step+" "+id); err != nil {
		t.Fatal(err)
	}
	crashed.kill(t)

	sessionDir := filepath.Join(d.Inbox, open.Session)
	w, err := dirwatch.New()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	changes, stop, err := w.Subscribe(sessionDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	second := startChild(t, top, dir, env...)
	var published, staged []string
	for {
		published, staged = inboxNames(t, sessionDir)
		if len(published) > 0 && len(staged) == 0 {
			break
		}
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("inbox after the restart: published %v, staged %v (%s)", published, staged, second.tail())
		}
	}
	if err := ir.WaitEyes(ctx, place, id, 1); err != nil {
		t.Fatalf("the reply has not exactly one 👀: %v (%s)", err, second.tail())
	}
	second.kill(t)
	if err := ir.WaitEyes(ctx, place, id, 1); err != nil {
		t.Fatalf("the reaction was asked for again: %v", err)
	}
	published, staged = inboxNames(t, sessionDir)
	if len(published) != 1 || len(staged) != 0 || !strings.HasSuffix(published[0], "-"+id+".json") {
		t.Fatalf("inbox: published %v, staged %v", published, staged)
	}
	data, err := os.ReadFile(filepath.Join(sessionDir, published[0]))
	if err != nil {
		t.Fatal(err)
	}
	m, err := bus.DecodeInbox(data)
	if err != nil || m.ID != id || m.Text != text || m.User != ir.User() || m.Session != open.Session {
		t.Fatalf("inbox file %s: %+v, %v", data, m, err)
	}
}

// inboxNames lists a session's inbox: published files, and stages (hidden).
func inboxNames(t *testing.T, dir string) (published, staged []string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			staged = append(staged, e.Name())
		} else {
			published = append(published, e.Name())
		}
	}
	return published, staged
}

// sessionPlace waits for the relay's session to have its place, its
// first part posted there, and returns the place's thread.
func sessionPlace(ctx context.Context, f Fake) (string, error) {
	var thread string
	err := f.WaitFor(ctx, func() bool {
		ps := f.Places()
		if len(ps) == 1 && ps[0].Thread != "" && len(ps[0].Replies) > 0 {
			thread = ps[0].Thread
			return true
		}
		return false
	})
	return thread, err
}
