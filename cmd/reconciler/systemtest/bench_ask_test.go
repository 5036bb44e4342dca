package systemtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/reconcile"
)

// BenchmarkAskClick measures, through a running daemon of each provider
// (the built binary under the loop), what a person's click costs: from
// the click's delivery at the fake to the decision's file in the inbox
// (durable: it is published after its journal record), and to the
// click's answer at the fake, which each service wants within 3 s. One
// ask per iteration, clicked once its file left the outbox.
//
//	go test ./cmd/reconciler/systemtest -run '^$' -bench AskClick -benchtime 40x
func BenchmarkAskClick(b *testing.B) {
	for _, provider := range []string{"discord", "slack", "telegram"} {
		b.Run(provider, func(b *testing.B) {
			e := newE2E(b)
			var clicker askClicker
			switch provider {
			case "discord":
				e.writeSpec(inboundBots()[0])
			case "slack":
				e.writeSpec(inboundBots()[1])
			case "telegram":
				e.writeSpec(telegramBot())
			}
			e.startLoop()
			e.waitStatus("ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
			name := map[string]string{"discord": "discord", "slack": "slack", "telegram": "tg"}[provider]
			switch provider {
			case "discord":
				clicker = discordClicker{e: e, thread: e.openSession("discord", "s1")}
			case "slack":
				clicker = slackClicker{e: e, place: e.openSession("slack", "s1")}
			case "telegram":
				clicker = telegramClicker{e: e, topic: e.telegramTopic("s1")}
			}
			d := e.bus(name)
			inbox := filepath.Join(d.Inbox, "s1")
			var durable, answered []time.Duration
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				id := fmt.Sprintf("q%04d", i)
				if _, err := bus.Write(d.Outbox, bus.Message{ID: id, Session: "s1", Event: bus.EventAsk, Text: "May I? " + id,
					Choices: bus.DefaultChoices, ExpiresAt: bus.InboxTime(time.Now().Add(time.Hour))}); err != nil {
					b.Fatal(err)
				}
				e.waitOutboxEmpty(name)
				landed := watchLanding(b, inbox, id)
				b.StartTimer()
				clickAt, answerAt := clicker.click(b, id)
				b.StopTimer()
				at := landed()
				if at.IsZero() {
					b.Fatalf("ask %s answered, but its decision did not appear in the inbox", id)
				}
				durable = append(durable, at.Sub(clickAt))
				answered = append(answered, answerAt.Sub(clickAt))
				b.StartTimer()
			}
			b.StopTimer()
			report(b, "durable", durable)
			report(b, "answer", answered)
		})
	}
}

// askClicker clicks an ask's first button as the authorized person and
// returns when the fake delivered the click and when the bot answered it.
type askClicker interface {
	click(b *testing.B, askID string) (clickAt, answerAt time.Time)
}

type discordClicker struct {
	e      *e2e
	thread string
}

func (c discordClicker) click(b *testing.B, askID string) (time.Time, time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	data := bus.ChoiceData(askID, 0)
	var msg string
	if _, err := c.e.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
		for _, m := range s.In(c.thread) {
			if slices.Contains(m.Buttons(), data) {
				msg = m.ID
			}
		}
		return msg != ""
	}); err != nil {
		b.Fatal(err)
	}
	in, err := c.e.f.discord.Click(c.thread, msg, aliceDiscord, data)
	if err != nil {
		b.Fatal(err)
	}
	var answered fakediscord.Interaction
	if _, err := c.e.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
		i := slices.IndexFunc(s.Interactions, func(x fakediscord.Interaction) bool { return x.ID == in.ID })
		if i >= 0 && len(s.Interactions[i].Answers) > 0 {
			answered = s.Interactions[i]
			return true
		}
		return false
	}); err != nil {
		b.Fatal(err)
	}
	return answered.At, answered.Answers[0].At
}

type slackClicker struct {
	e     *e2e
	place string
}

func (c slackClicker) click(b *testing.B, askID string) (time.Time, time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	var ts string
	if _, err := c.e.f.slack.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		th := s.Thread("C1", c.place)
		i := slices.IndexFunc(th, func(m fakeslack.Message) bool {
			return len(m.Buttons) > 0 && m.Buttons[0].ActionID == bus.ChoiceData(askID, 0)
		})
		if i >= 0 {
			ts = th[i].TS
		}
		return i >= 0
	}); err != nil {
		b.Fatal(err)
	}
	in, err := c.e.f.slack.Click(fakeslack.Click{App: slackApp, Channel: "C1", TS: ts, ActionID: bus.ChoiceData(askID, 0), User: aliceSlack})
	if err != nil {
		b.Fatal(err)
	}
	s, err := c.e.f.slack.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		i := slices.IndexFunc(s.Envelopes, func(en fakeslack.Envelope) bool { return en.ID == in.EnvelopeID })
		return i >= 0 && s.Envelopes[i].Acked
	})
	if err != nil {
		b.Fatal(err)
	}
	en := s.Envelopes[slices.IndexFunc(s.Envelopes, func(en fakeslack.Envelope) bool { return en.ID == in.EnvelopeID })]
	return en.DeliveredAt[0], en.AckedAt
}

type telegramClicker struct {
	e     *e2e
	topic int64
}

func (c telegramClicker) click(b *testing.B, askID string) (time.Time, time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	var msg int64
	if _, err := c.e.f.telegram.WaitFor(ctx, func(s faketelegram.Snapshot) bool {
		for _, m := range s.Messages {
			if m.Thread == c.topic && slices.Contains(m.Keyboard.Data(), bus.ChoiceData(askID, 0)) {
				msg = m.ID
			}
		}
		return msg != 0
	}); err != nil {
		b.Fatal(err)
	}
	q, err := c.e.f.telegram.Click(faketelegram.Click{Message: msg, From: aliceTelegram, Data: bus.ChoiceData(askID, 0)})
	if err != nil {
		b.Fatal(err)
	}
	a, err := c.e.f.telegram.AwaitAnswer(ctx, q.ID)
	if err != nil {
		b.Fatal(err)
	}
	return q.Time, a.At
}

// watchLanding watches dir for ask id's decision file; the func it
// returns gives when the file appeared (zero: it did not, by a deadline).
// Taken from the watch, not the file's mtime: the kernel's coarse clock
// stamps files milliseconds behind.
func watchLanding(b *testing.B, dir, id string) func() time.Time {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Add(dir); err != nil {
		b.Fatal(err)
	}
	at := make(chan time.Time, 1)
	go func() {
		defer w.Close()
		deadline := time.After(e2eDeadline)
		for {
			select {
			case ev := <-w.Events:
				if strings.HasSuffix(ev.Name, "-"+id+".json") && !strings.HasPrefix(filepath.Base(ev.Name), ".") {
					at <- time.Now()
					return
				}
			case <-w.Errors:
			case <-deadline:
				at <- time.Time{}
				return
			}
		}
	}()
	return func() time.Time { return <-at }
}

// report puts the median and the 99th percentile of ds in the benchmark's
// result, in ms.
func report(b *testing.B, what string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2])/1e6, what+"-p50-ms")
	b.ReportMetric(float64(ds[min(len(ds)-1, len(ds)*99/100)])/1e6, what+"-p99-ms")
}
