package systemtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
)

// The cross-machine relay, end to end: messages queued with `reconciler
// send` on a machine that does not run the daemon are forwarded into
// etcd (/reconciler/<name>/outbox/<id>) and posted, exactly once, by the
// daemon that owns the name, wherever it runs; then the key is deleted
// and /reconciler/<name>/done/<id> written (the message's sum, on a 24 h
// lease). The relay's journal lives in etcd too, so a takeover after a
// kill -9 of the owner's machine neither loses nor repeats a message.

// frVerbose makes a daemon post every message: a lean one skips the
// info-level messages these tests queue.
const frVerbose = "  verbosity: verbose\n"

// frDoneLease is the lease the contract puts on a done/<id> key.
const frDoneLease = 24 * time.Hour

// frSend queues msg for name with the real binary on machine m, as an
// operator's shell there would (through m's loop when it answers), and
// returns it as queued: the id send printed, defaults applied. It never
// touches fl.t, so it may run on any goroutine; ctx ends it.
func (fl *fleet) frSend(ctx context.Context, m *fleetMachine, name string, msg bus.Message) (bus.Message, error) {
	args := []string{"send", name, "--session", msg.Session}
	if msg.Event != "" {
		args = append(args, "--event", msg.Event)
	}
	if msg.Title != "" {
		args = append(args, "--title", msg.Title)
	}
	if msg.Text != "" {
		args = append(args, msg.Text)
	}
	args = append(append(args, "--agent-dir", m.e.agentDir), fl.args(m)...)
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = m.e.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return msg, fmt.Errorf("send %s %q on %s: %v; stdout %q, stderr %q", name, msg.Text, m.id, err, stdout.String(), stderr.String())
	}
	if !ulidLine.MatchString(stdout.String()) {
		return msg, fmt.Errorf("send %s %q on %s: stdout %q is not one ULID line; stderr %q", name, msg.Text, m.id, stdout.String(), stderr.String())
	}
	msg.ID = strings.TrimSpace(stdout.String())
	return msg.WithDefaults(), nil
}

// frNonOwner is a machine other than the one that holds name in etcd now.
func (fl *fleet) frNonOwner(name string) (owner string, other *fleetMachine) {
	fl.t.Helper()
	h := fl.holder(name)
	if h == nil {
		fl.t.Fatalf("nobody holds %s in etcd", name)
	}
	for _, m := range fl.machines {
		if m.id != h.Machine {
			return h.Machine, m
		}
	}
	fl.t.Fatalf("no machine other than %s", h.Machine)
	return "", nil
}

// frPost is one message a bot made at a fake: where (a Discord channel or
// thread id; for Slack the root's ts for a reply, "" for a root) and its
// text as the fake stores it.
type frPost struct{ place, text string }

// frView is what the relay made at one fake, whichever the service.
type frView struct {
	posts []frPost // the bot's messages, in the order they were created
	// places are, by session title, where each thread made for it is
	// (Discord thread id, Slack root ts): one per root posted.
	places map[string][]string
}

func frDiscordView(s fakediscord.Snapshot) frView {
	v := frView{places: map[string][]string{}}
	for _, m := range s.Messages {
		if m.Bot {
			v.posts = append(v.posts, frPost{m.ChannelID, m.Content})
		}
	}
	for _, th := range s.Threads {
		v.places[th.Name] = append(v.places[th.Name], th.ID)
	}
	return v
}

func frSlackView(s fakeslack.Snapshot) frView {
	v := frView{places: map[string][]string{}}
	for _, m := range s.Messages {
		if m.BotID == "" {
			continue
		}
		v.posts = append(v.posts, frPost{m.ThreadTS, m.Text})
		// A root is "*Title* · session `s`".
		if m.ThreadTS == "" && strings.HasPrefix(m.Text, "*") {
			if title, _, ok := strings.Cut(m.Text[1:], "* · "); ok {
				v.places[title] = append(v.places[title], m.TS)
			}
		}
	}
	return v
}

// count is how many of the bot's messages have exactly text.
func (v frView) count(text string) int {
	n := 0
	for _, p := range v.posts {
		if p.text == text {
			n++
		}
	}
	return n
}

// in is the texts posted in one place, oldest first.
func (v frView) in(place string) []string {
	var out []string
	for _, p := range v.posts {
		if p.place == place {
			out = append(out, p.text)
		}
	}
	return out
}

// posted is how many of texts were posted at least once.
func (v frView) posted(texts []string) int {
	n := 0
	for _, s := range texts {
		if v.count(s) > 0 {
			n++
		}
	}
	return n
}

// frSnapshot is the view of provider's fake now.
func frSnapshot(f *fakes, provider string) frView {
	if provider == "discord" {
		return frDiscordView(f.discord.Snapshot())
	}
	return frSlackView(f.slack.Snapshot())
}

// frWait waits, woken by the fake's changes and bound by d, until cond
// holds for provider's view, and returns the last view it looked at.
func frWait(f *fakes, provider string, d time.Duration, cond func(frView) bool) (frView, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if provider == "discord" {
		s, err := f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return cond(frDiscordView(s)) })
		return frDiscordView(s), err
	}
	s, err := f.slack.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return cond(frSlackView(s)) })
	return frSlackView(s), err
}

// frKey is one key of the relay's in etcd: its value and lease.
type frKey struct {
	value []byte
	lease int64
}

// frRelayKeys waits, woken by etcd's watch and bound by d, until name's
// outbox in etcd is empty and a done/<id> key exists for every message,
// and returns those done keys by id.
func (fl *fleet) frRelayKeys(name string, msgs []bus.Message, d time.Duration) map[string]frKey {
	fl.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	outbox := path.Join(etcdstore.DefaultPrefix, name, "outbox") + "/"
	done := path.Join(etcdstore.DefaultPrefix, name, "done") + "/"
	wch := fl.cli.Watch(ctx, path.Join(etcdstore.DefaultPrefix, name)+"/", clientv3.WithPrefix())
	var left []string
	var missing []string
	for {
		resp, err := fl.cli.Get(ctx, outbox, clientv3.WithPrefix(), clientv3.WithKeysOnly())
		if err != nil {
			fl.t.Fatalf("reading %s: %v", outbox, err)
		}
		left = left[:0]
		for _, kv := range resp.Kvs {
			left = append(left, strings.TrimPrefix(string(kv.Key), outbox))
		}
		resp, err = fl.cli.Get(ctx, done, clientv3.WithPrefix())
		if err != nil {
			fl.t.Fatalf("reading %s: %v", done, err)
		}
		keys := map[string]frKey{}
		for _, kv := range resp.Kvs {
			keys[strings.TrimPrefix(string(kv.Key), done)] = frKey{kv.Value, kv.Lease}
		}
		missing = missing[:0]
		for _, m := range msgs {
			if _, ok := keys[m.ID]; !ok {
				missing = append(missing, m.ID)
			}
		}
		if len(left) == 0 && len(missing) == 0 {
			return keys
		}
		select {
		case <-wch:
		case <-ctx.Done():
			fl.t.Fatalf("etcd: %s: %d key(s) still in the outbox (%v), %d of %d message(s) with no done key (%v)",
				name, len(left), left, len(missing), len(msgs), missing)
		}
	}
}

// frCheckDone checks the done keys of msgs: each holds the message's sum
// and is on a lease of about 24 h.
func (fl *fleet) frCheckDone(t *testing.T, name string, msgs []bus.Message, keys map[string]frKey) {
	t.Helper()
	leases := map[int64]int64{} // lease -> granted TTL in seconds
	for _, m := range msgs {
		k := keys[m.ID]
		if sum := bus.MessageSum(m); !strings.Contains(string(k.value), sum) {
			t.Errorf("%s: done/%s holds %q, want the message's sum %s", name, m.ID, k.value, sum)
		}
		if k.lease == 0 {
			t.Errorf("%s: done/%s is on no lease, want one of %s", name, m.ID, frDoneLease)
			continue
		}
		if _, ok := leases[k.lease]; !ok {
			ttl, err := fl.cli.TimeToLive(context.Background(), clientv3.LeaseID(k.lease))
			if err != nil {
				t.Fatalf("lease of done/%s: %v", m.ID, err)
			}
			leases[k.lease] = ttl.GrantedTTL
		}
		if got := time.Duration(leases[k.lease]) * time.Second; got < frDoneLease-time.Hour || got > frDoneLease+time.Hour {
			t.Errorf("%s: done/%s is on a lease of %s, want %s", name, m.ID, got, frDoneLease)
		}
	}
}

// frLocalDirsEmpty waits, bound by e2eDeadline, until m's local outbox
// of name is empty, and checks that nothing went to its failed/ dir.
func frLocalDirsEmpty(t *testing.T, m *fleetMachine, name string) {
	t.Helper()
	d, err := bus.Paths(m.e.agentDir, name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	waitDirEvents(t, ctx, d.Outbox, func() bool {
		ents, err := os.ReadDir(d.Outbox)
		return err == nil && len(ents) == 0
	}, fmt.Sprintf("%s's local outbox of %s empty", m.id, name))
	if ents, err := os.ReadDir(d.Failed); err == nil && len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("%s's failed/ of %s holds %v, want nothing", m.id, name, names)
	}
}

func frTexts(msgs []bus.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Text
	}
	return out
}

// A machine that does not run the daemon queues a session (an open with
// a title, then twenty messages) for each of a Discord and a Slack bot.
// Each is posted once, in order, in its session's one thread, by the
// daemon on the machine that owns the name; the sender's outbox is empty,
// etcd's outbox of the name too, and each message has its done key.
func TestFleetRelayPostsANonOwnersMessagesOnce(t *testing.T) {
	const n = 20
	fl := startFleet(t, 3,
		object{name: "bot", provider: "discord", generation: 1, extra: frVerbose},
		object{name: "sbot", provider: "slack", generation: 1, extra: frVerbose})
	waitDiscord(t, fl.f, "one live session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
	waitSlack(t, fl.f, "one live socket", func(s fakeslack.AppStats) bool { return s.Live == 1 })

	type run struct {
		name, provider, title string
		sender                *fleetMachine
		msgs                  []bus.Message // as queued: the open first
	}
	runs := []*run{{name: "bot", provider: "discord"}, {name: "sbot", provider: "slack"}}
	ctx := context.Background()
	for _, r := range runs {
		owner, sender := fl.frNonOwner(r.name)
		r.sender, r.title = sender, "Relay of "+r.name+" from "+sender.id
		session := "fleet-relay-" + r.name
		plan := []bus.Message{{Session: session, Event: bus.EventOpen, Title: r.title, Text: r.name + " session opened on " + sender.id}}
		for i := range n {
			plan = append(plan, bus.Message{Session: session, Text: fmt.Sprintf("%s message %02d of %d from %s", r.name, i+1, n, sender.id)})
		}
		for _, m := range plan {
			q, err := fl.frSend(ctx, sender, r.name, m)
			if err != nil {
				t.Fatal(err)
			}
			r.msgs = append(r.msgs, q)
		}
		t.Logf("%s: owned by %s; %d messages queued on %s", r.name, owner, len(r.msgs), sender.id)
	}

	for _, r := range runs {
		texts := frTexts(r.msgs)
		v, err := frWait(fl.f, r.provider, 3*e2eDeadline, func(v frView) bool {
			return len(v.places[r.title]) > 0 && v.posted(texts) == len(texts)
		})
		if err != nil {
			t.Fatalf("fake %s: %s's %d messages from %s: %v (%d posted, thread made: %v)",
				r.provider, r.name, len(texts), r.sender.id, err, v.posted(texts), len(v.places[r.title]) > 0)
		}
		if places := v.places[r.title]; len(places) != 1 {
			t.Errorf("%s: %d threads for %q, want 1", r.name, len(places), r.title)
		} else if got := v.in(places[0]); !slices.Equal(got, texts) {
			t.Errorf("%s: the session's thread holds\n%q\nwant, in this order,\n%q", r.name, got, texts)
		}
		for _, s := range texts {
			if c := v.count(s); c != 1 {
				t.Errorf("%s: %q posted %d times, want once", r.name, s, c)
			}
		}
		keys := fl.frRelayKeys(r.name, r.msgs, e2eDeadline)
		fl.frCheckDone(t, r.name, r.msgs, keys)
		frLocalDirsEmpty(t, r.sender, r.name)
	}
	// Nothing came late: still once each.
	for _, r := range runs {
		v := frSnapshot(fl.f, r.provider)
		for _, s := range frTexts(r.msgs) {
			if c := v.count(s); c != 1 {
				t.Errorf("%s: %q posted %d times in the end, want once", r.name, s, c)
			}
		}
	}
	if d := fl.f.discord.Snapshot().Tokens[discordToken]; d.MaxLive != 1 {
		t.Errorf("fake Discord saw %d live sessions at once, want never more than 1", d.MaxLive)
	}
	if s := fl.f.slack.Snapshot().Apps[slackApp]; s.MaxLive != 1 {
		t.Errorf("fake Slack saw %d live sockets at once, want never more than 1", s.MaxLive)
	}
}

// frSendErrs collects the errors of sends run in the background.
type frSendErrs struct {
	mu   sync.Mutex
	errs []error
}

func (e *frSendErrs) add(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, err)
}

func (e *frSendErrs) err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return errors.Join(e.errs...)
}

// A machine that does not run the Discord daemon queues a burst of 80
// messages in four sessions. Once some are posted, the owner's machine is
// killed -9 (its loop and the daemon), just after a post the fake stored
// but has not yet answered. Another machine takes the name over, and
// every message is posted exactly once in its session's thread: none
// lost, none repeated; one session live at the fake at any instant.
func TestFleetRelayExactlyOnceAcrossATakeover(t *testing.T) {
	const sessions, perSession = 4, 20 // an open and 19 messages each
	const beforeCrash = 10             // posts seen before the crash
	fl := startFleet(t, 3, object{name: "bot", provider: "discord", generation: 1, extra: frVerbose})
	before := waitDiscord(t, fl.f, "one live session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
	owner, sender := fl.frNonOwner("bot")

	// The plan: texts and titles known before anything is sent.
	plan := make([][]bus.Message, sessions)
	titles := make([]string, sessions)
	var texts []string
	for s := range sessions {
		session := fmt.Sprintf("burst-%d", s+1)
		titles[s] = fmt.Sprintf("Burst %d from %s", s+1, sender.id)
		plan[s] = []bus.Message{{Session: session, Event: bus.EventOpen, Title: titles[s], Text: session + " opened"}}
		for i := 1; i < perSession; i++ {
			plan[s] = append(plan[s], bus.Message{Session: session, Text: fmt.Sprintf("%s message %02d", session, i)})
		}
		texts = append(texts, frTexts(plan[s])...)
	}

	// Queue the burst on the sender, one goroutine per session (in order
	// within it), in the background.
	queued := make([][]bus.Message, sessions)
	var sendErrs frSendErrs
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	start := time.Now()
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, m := range plan[s] {
				q, err := fl.frSend(ctx, sender, "bot", m)
				if err != nil {
					sendErrs.add(err)
					return
				}
				queued[s] = append(queued[s], q)
			}
		}()
	}

	v, err := frWait(fl.f, "discord", 3*e2eDeadline, func(v frView) bool { return v.posted(texts) >= beforeCrash })
	if err != nil {
		t.Fatalf("fake Discord: the first %d of %d messages queued on %s (owner %s): %v (%d posted; send errors: %v)",
			beforeCrash, len(texts), sender.id, owner, err, v.posted(texts), sendErrs.err())
	}
	// Crash just after a post the fake stored and holds the answer of:
	// the daemon dies with it attempted and unconfirmed.
	fl.f.discord.SetSlow(5 * time.Second)
	stored := len(fl.f.discord.Snapshot().Messages)
	slowCtx, slowCancel := context.WithTimeout(context.Background(), e2eDeadline)
	_, err = fl.f.discord.WaitFor(slowCtx, func(s fakediscord.Snapshot) bool { return len(s.Messages) >= stored+2 })
	slowCancel()
	if err != nil {
		t.Fatalf("fake Discord: two more posts stored with answers held: %v", err)
	}
	if h := fl.holder("bot"); h == nil || h.Machine != owner {
		t.Fatalf("bot is held by %+v before the crash, want %s still", h, owner)
	}
	atCrash := frSnapshot(fl.f, "discord").posted(texts)
	crashed := time.Now()
	fl.crash(fl.machine(owner), "bot")
	fl.f.discord.SetSlow(0)
	if atCrash == len(texts) {
		t.Errorf("all %d messages were posted before the crash: nothing was left to take over", len(texts))
	}

	waitDiscord(t, fl.f, "a new session elsewhere", func(s fakediscord.TokenStats) bool {
		return s.Live == 1 && s.Identifies+s.Resumes > before.Identifies+before.Resumes
	})
	failover := time.Since(crashed)
	h := fl.holder("bot")
	if h == nil || h.Machine == owner {
		t.Fatalf("bot is held by %+v after the failover, want another machine than %s", h, owner)
	}
	t.Logf("owner %s killed -9 with %d of %d messages posted (%s after the first send); bot running on %s after %s (lease TTL %s)",
		owner, atCrash, len(texts), crashed.Sub(start).Round(time.Millisecond), h.Machine, failover.Round(time.Millisecond), fl.ttl)

	v, err = frWait(fl.f, "discord", 4*e2eDeadline, func(v frView) bool { return v.posted(texts) == len(texts) })
	if err != nil {
		var lost []string
		for _, s := range texts {
			if v.count(s) == 0 {
				lost = append(lost, s)
			}
		}
		t.Fatalf("fake Discord: all %d messages after the takeover: %v; %d not posted: %q (send errors: %v)",
			len(texts), err, len(lost), lost, sendErrs.err())
	}
	allPosted := time.Since(crashed)
	wg.Wait()
	if err := sendErrs.err(); err != nil {
		t.Fatalf("queueing the burst on %s: %v", sender.id, err)
	}
	var msgs []bus.Message
	for _, q := range queued {
		msgs = append(msgs, q...)
	}
	keys := fl.frRelayKeys("bot", msgs, e2eDeadline)
	fl.frCheckDone(t, "bot", msgs, keys)
	frLocalDirsEmpty(t, sender, "bot")

	// The final count, once etcd says nothing is left to post.
	v = frSnapshot(fl.f, "discord")
	var doubles []string
	for _, s := range texts {
		if c := v.count(s); c != 1 {
			doubles = append(doubles, fmt.Sprintf("%q ×%d", s, c))
		}
	}
	if len(doubles) > 0 {
		t.Errorf("%d of %d messages not posted exactly once: %s", len(doubles), len(texts), strings.Join(doubles, ", "))
	}
	for s := range sessions {
		places := v.places[titles[s]]
		if len(places) != 1 {
			t.Errorf("%d threads for %q, want 1", len(places), titles[s])
			continue
		}
		want := frTexts(plan[s])
		got := v.in(places[0])
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
			t.Errorf("the thread of %q holds\n%q\nwant\n%q", titles[s], got, want)
		} else if !slices.Equal(got, want) {
			t.Logf("the thread of %q holds its messages out of order: %q", titles[s], got)
		}
	}
	d := fl.f.discord.Snapshot()
	if st := d.Tokens[discordToken]; st.MaxLive != 1 {
		t.Errorf("fake Discord saw %d live sessions at once, want never more than 1", st.MaxLive)
	}
	t.Logf("%d messages posted once each, all %s after the crash; %d message POSTs at the fake for %d bot messages",
		len(texts), allPosted.Round(time.Millisecond), d.Posts, len(v.posts))
}
