package systemtest

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/reconcile"
)

// waitInboxStatus waits until name's inbox counts, as status shows them,
// satisfy cond, and returns them.
func (e *e2e) waitInboxStatus(name, what string, cond func(reconcile.InboxStatus) bool) reconcile.InboxStatus {
	e.t.Helper()
	var got reconcile.InboxStatus
	defer func() {
		if e.t.Failed() {
			e.t.Logf("%s inbox counts last seen: %+v", name, got)
		}
	}()
	e.waitStatus(name+" inbox "+what, func(s *reconcile.Status) bool {
		d, ok := daemonStatus(s, name)
		if !ok || d.Relay == nil || d.Relay.Inbox == nil {
			return false
		}
		got = *d.Relay.Inbox
		return cond(got)
	})
	return got
}

// ignoredAre says the ignored counts have grown from base's by exactly
// more, reason by reason (the daemon's own echoes, "self", aside: they
// are whatever the relay posted).
func ignoredAre(base reconcile.InboxStatus, more map[string]int64) func(reconcile.InboxStatus) bool {
	want := maps.Clone(base.IgnoredBy)
	if want == nil {
		want = map[string]int64{}
	}
	for r, n := range more {
		want[r] += n
	}
	delete(want, "self")
	return func(in reconcile.InboxStatus) bool {
		got := maps.Clone(in.IgnoredBy) // nil when none: delete and Equal take it
		delete(got, "self")
		return maps.Equal(got, want)
	}
}

// inboxFileOf reports whether the inbox under dir holds the published
// file of message id, in any session.
func inboxFileOf(inboxDir, id string) bool {
	matches, _ := filepath.Glob(filepath.Join(inboxDir, "*", "*-"+id+".json"))
	return len(matches) > 0
}

// Slack's contract for Socket Mode: an envelope not acked within 3 s is
// sent again. The daemon acks a reply only once its inbox file is
// published (the fake's OnAck looks for it at the moment the ack frame
// arrives), every reply within the bound (each delivered once), an
// ignored message as well; and an ack lost on the way brings a
// redelivery that is acked again and lands nothing twice.
func TestInboundSlackAcksOnlyWhatIsDurable(t *testing.T) {
	t.Parallel()
	type ack struct {
		env    fakeslack.Envelope
		landed bool
		gap    time.Duration // from the latest delivery to the ack
	}
	acks := make(chan ack, 256)
	var inboxDir atomic.Pointer[string]
	f := startFakesWith(t, fakeslack.Options{OnAck: func(env fakeslack.Envelope) {
		a := ack{env: env}
		if dir := inboxDir.Load(); dir != nil && env.MessageTS != "" {
			a.landed = inboxFileOf(*dir, env.MessageTS)
		}
		if n := len(env.DeliveredAt); n > 0 {
			a.gap = time.Since(env.DeliveredAt[n-1])
		}
		acks <- a
	}})
	e := newE2EWith(t, f)
	d, err := bus.Paths(e.agentDir, "slack")
	if err != nil {
		t.Fatal(err)
	}
	inboxDir.Store(&d.Inbox)
	e.writeSpec(inboundBots()[1])
	e.startLoop()
	e.waitStatus("slack ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	root := e.openSession("slack", "s1")

	ackOf := func(ts string) ack {
		t.Helper()
		deadline := time.After(e2eDeadline)
		for {
			select {
			case a := <-acks:
				if a.env.MessageTS == ts {
					return a
				}
			case <-deadline:
				t.Fatalf("no ack for the envelope of %s", ts)
			}
		}
	}
	inject := func(user, text string) string {
		t.Helper()
		m, err := f.slack.InjectMessage("C1", user, text, root)
		if err != nil {
			t.Fatal(err)
		}
		return m.TS
	}

	// A first reply makes sure the relay has recorded the thread: one
	// that comes before the record is not yet a session's (acked, then
	// landed by the history read the new thread starts).
	inject(aliceSlack, "warming up")
	base := e.waitInboxStatus("slack", "holds the first reply", func(in reconcile.InboxStatus) bool { return in.Landed == 1 })

	reply := inject(aliceSlack, "acked once durable")
	a := ackOf(reply)
	if !a.landed {
		t.Fatalf("the envelope of %s was acked before its inbox file was there", reply)
	}
	if a.env.Deliveries != 1 || a.gap >= fakeslack.DefaultAckTimeout {
		t.Fatalf("acked after %d deliveries, %v after the last one (Slack retries after %v)", a.env.Deliveries, a.gap, fakeslack.DefaultAckTimeout)
	}
	t.Logf("reply acked %v after its delivery", a.gap)

	other := inject(mallorySlack, "ignored, acked all the same")
	if a := ackOf(other); a.landed || a.env.Deliveries != 1 {
		t.Fatalf("mallory's envelope: landed %v, %d deliveries", a.landed, a.env.Deliveries)
	}

	// The daemon's ack of the next reply is lost: Slack sends it again.
	f.slack.LoseAcks(1)
	again := inject(aliceSlack, "ack lost once")
	a = ackOf(again) // the ack of the redelivery: the lost one never reached OnAck
	if !a.landed || a.env.Deliveries != 2 {
		t.Fatalf("after a lost ack: landed %v, %d deliveries", a.landed, a.env.Deliveries)
	}
	in := e.waitInboxStatus("slack", "counts the redelivery", func(in reconcile.InboxStatus) bool {
		// At least one more: a late live copy of an earlier reply may add one.
		return in.Landed == 3 && in.Duplicates >= base.Duplicates+1
	})
	if !ignoredAre(base, map[string]int64{"unauthorized": 1})(in) {
		t.Errorf("ignored by reason: %v", in.IgnoredBy)
	}
	files := e.inbox("slack")
	texts := inboxTexts(t, files) // fails on a text landed twice
	if len(files) != 3 || texts["acked once durable"].ID != reply || texts["ack lost once"].ID != again {
		t.Fatalf("inbox after a redelivery: %v", files)
	}
}

// A RESUME that replays the session's whole backlog (at-least-once
// delivery), a hung connection RESUMEd and a reconnect with a new
// session (READY, then a history read) add nothing: each reply lands once and gets one 👀.
func TestInboundDiscordReplayAndReconnectAddNothing(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(inboundBots()[0])
	e.startLoop()
	e.waitStatus("discord ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	thread := e.openSession("discord", "s1")
	token := func(sn fakediscord.Snapshot) fakediscord.TokenStats { return sn.Tokens[discordToken] }

	e.say("discord", thread, aliceDiscord, "before the drop")
	base := e.waitInboxStatus("discord", "holds the first reply", func(in reconcile.InboxStatus) bool { return in.Landed == 1 })

	f := e.f.discord
	f.ReplayAllOnNextResume()
	if n := f.DropConnections(); n != 1 {
		t.Fatalf("dropped %d gateway connections, want 1", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	if _, err := f.WaitFor(ctx, func(sn fakediscord.Snapshot) bool { return token(sn).Resumes == 1 && token(sn).Live == 1 }); err != nil {
		t.Fatalf("no RESUME after the drop: %v", err)
	}
	e.say("discord", thread, aliceDiscord, "after the resume")
	in := e.waitInboxStatus("discord", "takes the replay as duplicates", func(in reconcile.InboxStatus) bool {
		return in.Landed == 2 && in.Duplicates > base.Duplicates
	})
	t.Logf("after the replay: %+v", in)

	// Heartbeats unanswered: the daemon closes the zombie connection
	// resumably and RESUMEs the session (no new IDENTIFY), which replays
	// what it missed.
	f.SetHeartbeatAcks(false)
	if _, err := f.WaitFor(ctx, func(sn fakediscord.Snapshot) bool { return token(sn).Live == 0 }); err != nil {
		t.Fatalf("the daemon did not give up the hung connection: %v", err)
	}
	f.SetHeartbeatAcks(true)
	if _, err := f.WaitFor(ctx, func(sn fakediscord.Snapshot) bool { return token(sn).Resumes == 2 && token(sn).Live == 1 }); err != nil {
		t.Fatalf("no RESUME after the hung connection: %v", err)
	}
	if st := token(f.Snapshot()); st.Identifies != 1 {
		t.Errorf("stats %+v: a hung connection cost an IDENTIFY", st)
	}
	// A session Discord ends (op 9, not resumable): a new one, whose
	// READY starts a history read from the cursor.
	if n := f.InvalidateSessions(false); n != 1 {
		t.Fatalf("invalidated %d sessions, want 1", n)
	}
	if _, err := f.WaitFor(ctx, func(sn fakediscord.Snapshot) bool { return token(sn).Identifies == 2 && token(sn).Live == 1 }); err != nil {
		t.Fatalf("no new session: %v", err)
	}
	e.say("discord", thread, aliceDiscord, "after the new session")
	e.waitInboxStatus("discord", "holds the third reply", func(in reconcile.InboxStatus) bool { return in.Landed == 3 })

	files := e.inbox("discord")
	texts := inboxTexts(t, files)
	if len(files) != 3 {
		t.Fatalf("inbox: %v", files)
	}
	snap, err := f.WaitFor(ctx, func(sn fakediscord.Snapshot) bool {
		for _, m := range texts {
			if eyes(sn.In(thread), m.ID) != 1 {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("the replies did not get one 👀 each: %v", err)
	}
	for _, m := range snap.In(thread) {
		if m.AuthorID == aliceDiscord && len(m.Reactions) != 1 {
			t.Errorf("%q has reactions %v", m.Content, m.Reactions)
		}
	}
}

// eyes counts the 👀 reactions on message id among ms.
func eyes(ms []fakediscord.Message, id string) int {
	n := 0
	for _, m := range ms {
		if m.ID != id {
			continue
		}
		for _, r := range m.Reactions {
			if r.Emoji == "👀" {
				n++
			}
		}
	}
	return n
}

// Only a person's plain reply in a session's thread lands. A bot (even
// one posting under an authorized id), a message outside the sessions'
// threads, an edit of a landed reply and another person are each counted
// under their reason; the landed file keeps the text as first sent; the
// reply gets 👀 and the others get nothing.
func TestInboundIgnoresWhatIsNotAReply(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(inboundBots()...)
	e.startLoop()
	e.waitStatus("both ready", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	want := map[string]int64{"bot": 1, "not-a-session": 1, "edit": 1, "unauthorized": 1}

	{
		f := e.f.discord
		thread := e.openSession("discord", "s1")
		reply, err := f.InjectMessage(thread, aliceDiscord, "the reply")
		if err != nil {
			t.Fatal(err)
		}
		// What came before the reply landed (the relay's own posts, the
		// reply itself when it beat the thread's record) is the baseline.
		base := e.waitInboxStatus("discord", "holds the reply", func(in reconcile.InboxStatus) bool { return in.Landed == 1 })
		must(t, f.EditInjected(thread, reply.ID, "the reply, edited"))
		_, err = f.InjectBotMessage(thread, aliceDiscord, "a bot under alice's id")
		must(t, err)
		_, err = f.InjectMessage("chan-3", aliceDiscord, "in the parent channel")
		must(t, err)
		_, err = f.InjectMessage(thread, malloryDiscord, "not authorized")
		must(t, err)
		in := e.waitInboxStatus("discord", "counts each by its reason", ignoredAre(base, want))
		if in.Landed != 1 {
			t.Fatalf("inbox counts %+v", in)
		}
		checkOneReply(t, e.inbox("discord"), "the reply", reply.ID)
		if _, err := f.WaitFor(ctx, func(sn fakediscord.Snapshot) bool { return eyes(sn.In(thread), reply.ID) == 1 }); err != nil {
			t.Fatalf("no 👀 on the reply: %v", err)
		}
		for _, m := range f.Snapshot().In(thread) {
			if m.ID != reply.ID && len(m.Reactions) > 0 {
				t.Errorf("%q (%s) got reactions %v", m.Content, m.ID, m.Reactions)
			}
		}
	}
	{
		f := e.f.slack
		root := e.openSession("slack", "s1")
		reply, err := f.InjectMessage("C1", aliceSlack, "the reply", root)
		if err != nil {
			t.Fatal(err)
		}
		// What came before the reply landed (the relay's own posts, the
		// reply itself when it beat the thread's record) is the baseline.
		base := e.waitInboxStatus("slack", "holds the reply", func(in reconcile.InboxStatus) bool { return in.Landed == 1 })
		must(t, f.EditInjected("C1", reply.TS, "the reply, edited"))
		_, err = f.InjectBotMessage("C1", "B0OTHERAPP", "an integration's post", root)
		must(t, err)
		_, err = f.InjectMessage("C1", aliceSlack, "in the channel, not under a root", "")
		must(t, err)
		_, err = f.InjectMessage("C1", mallorySlack, "not authorized", root)
		must(t, err)
		in := e.waitInboxStatus("slack", "counts each by its reason", ignoredAre(base, want))
		if in.Landed != 1 {
			t.Fatalf("inbox counts %+v", in)
		}
		checkOneReply(t, e.inbox("slack"), "the reply", reply.TS)
		reacted := func(m fakeslack.Message) bool {
			for _, r := range m.Reactions {
				if r.Name == "eyes" && r.User == fakeslack.BotUserID(slackBot) {
					return true
				}
			}
			return false
		}
		if _, err := f.WaitFor(ctx, func(sn fakeslack.Snapshot) bool {
			for _, m := range sn.Thread("C1", root) {
				if m.TS == reply.TS {
					return reacted(m)
				}
			}
			return false
		}); err != nil {
			t.Fatalf("no eyes on the reply: %v", err)
		}
		for _, m := range f.Snapshot().Messages {
			if m.TS != reply.TS && len(m.Reactions) > 0 {
				t.Errorf("%q (%s) got reactions %v", m.Text, m.TS, m.Reactions)
			}
		}
	}
}

// checkOneReply checks that the inbox holds exactly the reply id, with the
// text it was first sent with.
func checkOneReply(t *testing.T, files map[string]string, text, id string) {
	t.Helper()
	texts := inboxTexts(t, files)
	if len(files) != 1 || texts[text].ID != id {
		t.Fatalf("inbox: %v", files)
	}
	for name := range files {
		if !strings.HasSuffix(name, "-"+id+".json") {
			t.Errorf("inbox file %s is not named for message %s", name, id)
		}
	}
}

// A bot whose application lacks the privileged Message Content intent is
// refused for good (close 4014) once authorizedUserIds asks for replies:
// status says DisallowedIntents and where to enable it, and the loop does
// not retry it. With the list empty the intent is not asked for, and the
// same bot runs.
func TestInboundRefusedIntentIsTerminalAndSaysWhere(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	f := e.f.discord
	f.SetMessageContentIntent(discordToken, false)
	e.writeSpec(inboundBots()[0])
	e.startLoop()
	st := e.waitStatus("discord refused", func(s *reconcile.Status) bool {
		d, ok := daemonStatus(s, "discord")
		return ok && d.Phase == reconcile.PhaseRefused
	})
	d, _ := daemonStatus(st, "discord")
	if d.Reason != "DisallowedIntents" || !strings.Contains(d.Message, "Privileged Gateway Intents") || !strings.Contains(d.Message, "authorizedUserIds") {
		t.Fatalf("refused with %s: %s", d.Reason, d.Message)
	}
	sn := f.Snapshot().Tokens[discordToken]
	if sn.Intents&int(discordgo.IntentMessageContent) == 0 {
		t.Fatalf("the refused IDENTIFY asked for intents %#x, without Message Content", sn.Intents)
	}
	// A pass more and the refusal stands, with no new IDENTIFY.
	if r := e.once(); r.code == 0 {
		t.Fatalf("--once converged with the name refused: %s", r.stderr)
	}
	if again := f.Snapshot().Tokens[discordToken]; again.Identifies != sn.Identifies {
		t.Fatalf("%d IDENTIFYs after the refusal, %d before: the loop retried a terminal refusal", again.Identifies, sn.Identifies)
	}

	bot := inboundBots()[0]
	bot.generation, bot.providerExtra = 2, ""
	e.writeSpec(bot)
	e.waitStatus("discord running without replies", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	if got := f.Snapshot().Tokens[discordToken].Intents; got&int(discordgo.IntentMessageContent) != 0 {
		t.Fatalf("intents %#x ask for Message Content with no authorizedUserIds", got)
	}
}
