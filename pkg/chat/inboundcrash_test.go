package chat_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/inbound"
)

// The authorized user of the inbound crash tests.
const (
	crashUserDiscord = "300000000000000001"
	crashUserSlack   = "U0CRASHUSER"
)

// inboundRig is what the inbound crash tests need of a fake beyond the
// relay's: the session's thread, a person's reply in it, the 👀 count.
type inboundRig interface {
	user() string
	// place waits for the relay's thread (Discord) or root (Slack).
	place(ctx context.Context) (string, error)
	reply(place, text string) (id string, err error)
	// waitEyes waits until message id has n reactions of ours, asked
	// for n times: a re-sent reaction would not show in the reactions.
	waitEyes(ctx context.Context, place, id string, n int) error
}

func (r *discordRig) user() string { return crashUserDiscord }

func (r *discordRig) place(ctx context.Context) (string, error) {
	s, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return len(s.Threads) == 1 })
	if err != nil {
		return "", err
	}
	return s.Threads[0].ID, nil
}

func (r *discordRig) reply(place, text string) (string, error) {
	m, err := r.f.InjectMessage(place, crashUserDiscord, text)
	return m.ID, err
}

func (r *discordRig) waitEyes(ctx context.Context, place, id string, n int) error {
	_, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
		for _, m := range s.In(place) {
			if m.ID == id {
				return len(m.Reactions) == n && m.ReactRequests == n
			}
		}
		return false
	})
	return err
}

func (r *slackRig) user() string { return crashUserSlack }

func (r *slackRig) place(ctx context.Context) (string, error) {
	s, err := r.f.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		ch := s.Channel(slackChannel)
		return len(ch) == 1 && len(s.Thread(slackChannel, ch[0].TS)) > 0
	})
	if err != nil {
		return "", err
	}
	return s.Channel(slackChannel)[0].TS, nil
}

func (r *slackRig) reply(place, text string) (string, error) {
	m, err := r.f.InjectMessage(slackChannel, crashUserSlack, text, place)
	return m.TS, err
}

func (r *slackRig) waitEyes(ctx context.Context, place, id string, n int) error {
	_, err := r.f.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		for _, m := range s.Thread(slackChannel, place) {
			if m.TS == id {
				return len(m.Reactions) == n && m.ReactRequests == n
			}
		}
		return false
	})
	return err
}

// The inbound crash matrix: the process SIGKILLed at each step of a
// reply's landing (its file staged, its landed record durable, the file
// published); a new process then finishes. The reply is in the inbox
// exactly once, byte for byte what it was sent as, no stage is left, and
// it has one 👀.
func TestInboundCrashMatrix(t *testing.T) {
	for _, provider := range []string{"discord", "slack"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			for _, step := range []string{inbound.StepStaged, inbound.StepRecorded, inbound.StepPublished} {
				t.Run(step, func(t *testing.T) { runInboundCrash(t, provider, step) })
			}
		})
	}
}

func runInboundCrash(t *testing.T, provider, step string) {
	ctx, cancel := context.WithTimeout(context.Background(), crashWait)
	defer cancel()
	r := newRig(t, provider, "")
	ir := r.(inboundRig)
	dir, d := newBus(t)
	open := crashSession(r.render().Limit)[0]
	publish(t, d, []bus.Message{open})
	env := append(r.env(), "RELAY_INBOUND_USER="+ir.user())

	// A first process opens the session; the reply comes while none runs.
	first := startChild(t, dir, env...)
	place, err := ir.place(ctx)
	if err != nil {
		t.Fatalf("no thread: %v", err)
	}
	if err := watchOutbox(t, d).waitEmpty(ctx, first); err != nil {
		t.Fatal(err)
	}
	first.kill(t)
	const text = "yes, <ship> it & tell me"
	id, err := ir.reply(place, text)
	if err != nil {
		t.Fatal(err)
	}

	crashed := startChild(t, dir, append(env, "RELAY_CRASH_AT="+step, "RELAY_CRASH_KEY="+id, "RELAY_CRASH_MODE=crash")...)
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
	second := startChild(t, dir, env...)
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
	if err := ir.waitEyes(ctx, place, id, 1); err != nil {
		t.Fatalf("the reply has not exactly one 👀: %v (%s)", err, second.tail())
	}
	second.kill(t)
	if err := ir.waitEyes(ctx, place, id, 1); err != nil {
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
	if err != nil || m.ID != id || m.Text != text || m.User != ir.user() || m.Session != open.Session {
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
