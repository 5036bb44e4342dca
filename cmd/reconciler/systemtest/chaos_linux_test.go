package systemtest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
)

// The chaos run (hack/chaos) drives a real loop with several daemons on
// the fakes through a random stream of faults, and judges the safety
// promises by what the fakes and a canary saw, not by the product's own
// view:
//
//   - never two live sessions of one bot at any instant (the fakes count
//     live sessions per token, and keep the most they ever saw at once);
//   - the canary, a process that records every signal it can catch and
//     that forged records name, is never signalled, stopped or killed;
//   - every message written to an outbox is posted exactly once, and every
//     session's root or thread made once (one the operator's rm -rf of
//     sdk/ removed before it was posted may be missing, never doubled);
//   - within chaosConvergeBound after the operator's restore, converged:
//     every name Ready at its generation in status.json and one live
//     session per bot at the fake, on two looks a few seconds apart; and
//     every message posted within chaosPostBound.
//
// A seed fixes the faults, their targets and their times, so a failing
// run can be replayed; the product's own timing is what it is.
var (
	chaosFaults    = flag.Int("chaos.faults", 0, "faults to inject; 0 skips the chaos run")
	chaosSeed      = flag.Int64("chaos.seed", 0, "the run's seed; 0 picks one from the clock")
	chaosDuration  = flag.Duration("chaos.duration", 3*time.Minute, "how long the faults are spread over")
	chaosEvents    = flag.Bool("chaos.events", false, "print the event log even when the run holds")
	chaosOwnership = flag.String("chaos.ownership", "files", "files (one machine) or etcd (three machines sharing a three-member cluster)")
)

// chaosConvergeBound is how long after the last fault the world must be
// converged.
const chaosConvergeBound = 30 * time.Second

// chaosPostBound is how long after the last fault every message must be
// posted: the relay's Settle, and the backlog at Slack's pace.
const chaosPostBound = 3 * time.Minute

// chaosFleetMachines and chaosFleetTTL are etcd mode's fleet: three
// machines, each in its own network namespace, on leases short enough
// that a lost machine's names move within the run.
const (
	chaosFleetMachines = 3
	chaosFleetTTL      = 6 * time.Second
)

// chaosSettle is the relay's Settle and a margin: how long after the last
// request a second copy from a wrong lookup could still arrive.
const chaosSettle = 35 * time.Second

// chaosBot is one name of the run's spec and the bot behind it.
type chaosBot struct {
	name, provider string
	token          string // the token the fake counts sessions by (Slack: the app token)
	tokenEnv       []string
	generation     int64
}

func chaosBots() []*chaosBot {
	return []*chaosBot{
		{name: "d1", provider: "discord", token: "chaos-d1-token", tokenEnv: []string{"CHAOS_D1_TOKEN"}},
		{name: "d2", provider: "discord", token: "chaos-d2-token", tokenEnv: []string{"CHAOS_D2_TOKEN"}},
		{name: "s1", provider: "slack", token: "xapp-chaos-s1", tokenEnv: []string{"CHAOS_S1_BOT", "CHAOS_S1_APP"}},
		{name: "s2", provider: "slack", token: "xapp-chaos-s2", tokenEnv: []string{"CHAOS_S2_BOT", "CHAOS_S2_APP"}},
	}
}

func TestChaos(t *testing.T) {
	if *chaosFaults <= 0 {
		t.Skip("the chaos run is hack/chaos (hack/test.sh runs a short one): it needs -chaos.faults N")
	}
	if *chaosOwnership != "files" && *chaosOwnership != "etcd" {
		t.Fatalf("-chaos.ownership %q: want files or etcd", *chaosOwnership)
	}
	seed := *chaosSeed
	if seed == 0 {
		seed = time.Now().UnixNano() % 1_000_000_000
	}
	c := newChaos(t, seed, *chaosOwnership)
	c.run(*chaosFaults, *chaosDuration)
}

// TestChaosCanary is the canary process of the chaos run (this test binary
// again, CHAOS_CANARY set to the file it records signals in): it records
// every signal it can catch, and waits to be killed.
func TestChaosCanary(t *testing.T) {
	out := os.Getenv("CHAOS_CANARY")
	if out == "" {
		t.Skip("the chaos run's canary process; the run starts it with CHAOS_CANARY set")
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs) // every signal it can catch
	fmt.Fprintln(f, "READY")
	for s := range sigs {
		if s == syscall.SIGURG {
			continue // the Go runtime's own preemption signal
		}
		fmt.Fprintln(f, s.String())
	}
}

type chaos struct {
	t        testing.TB
	seed     int64
	rng      *rand.Rand
	f        *fakes
	bots     []*chaosBot
	machines []*chaosMachine // one in files mode; three in etcd mode
	fleet    *fleet          // etcd mode: the cluster the machines share
	start    time.Time

	mu     sync.Mutex
	log    []string
	counts map[string]int    // faults by kind
	frozen map[int]chaosProc // SIGSTOPped and not yet continued
	down   map[int]bool      // etcd members stopped and not yet restarted
	// repairs are the operator's fixes (repair); refusedLast is the
	// refusal each name showed at the operator's last look.
	repairMu    sync.Mutex
	repairs     int
	refusedLast map[string]string

	canary       *exec.Cmd
	canaryFile   string
	canaryExited chan struct{}
	running      sync.WaitGroup // the background commands (see command)
	inFlight     atomic.Int32   // how many of them run now

	msgs    msgLedger
	writing context.CancelFunc
	written chan struct{}
	stopped sync.Once
}

// chaosMachine is one machine of the run: its agent dir, spec and loop;
// in etcd mode its own network namespace, which a partition cuts off
// from the cluster.
type chaosMachine struct {
	id   string
	e    *e2e
	net  *testNet // etcd mode
	args []string // the flags that put a command in its place in the fleet
	loop *loopProc
	cut  bool // partitioned from etcd now; loop and cut under chaos.mu
}

// msgLedger is every message the run wrote, by its text.
type msgLedger struct {
	mu      sync.Mutex
	seq     int
	byText  map[string]*chaosMsg
	session map[string]string    // machine/name -> its current session, opened
	opened  map[string]*chaosMsg // every session's title -> its open message
}

type chaosMsg struct {
	bot, text string
	machine   string // the machine whose outbox it was written to
	mayLose   bool   // written before an rm -rf of sdk/ that may have taken it
}

func newChaos(t *testing.T, seed int64, ownershipMode string) *chaos {
	bots := chaosBots()
	var dTokens, sBots, sApps []string
	for _, b := range bots {
		if b.provider == "discord" {
			dTokens = append(dTokens, b.token)
		} else {
			sBots, sApps = append(sBots, "xoxb-"+b.name), append(sApps, b.token)
		}
		b.generation = 1
	}
	// In etcd mode every machine has its own network namespace; etcd and
	// the fakes listen on the first one's host side, reached from each.
	var nets []*testNet
	host := ""
	if ownershipMode == "etcd" {
		for range chaosFleetMachines {
			nets = append(nets, newTestNet(t))
		}
		host = nets[0].fakesIP
	}
	// The fake forgets a nonce after the window the product relies on, no
	// later: a re-post past it would show as a double.
	d, err := fakediscord.Start(fakediscord.Options{Tokens: dTokens, Channels: []string{"chan-3"}, HeartbeatInterval: time.Second,
		NonceWindow: discord.DefaultNonceWindow, Host: host})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	s, err := fakeslack.Start(fakeslack.Options{BotTokens: sBots, AppTokens: sApps, Channels: []string{"C1"}, PingInterval: time.Second, Host: host})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	f := &fakes{discord: d, slack: s}
	c := &chaos{t: t, seed: seed, rng: rand.New(rand.NewPCG(uint64(seed), 0x5eed)), f: f, bots: bots,
		counts: map[string]int{}, frozen: map[int]chaosProc{}, down: map[int]bool{}, refusedLast: map[string]string{},
		msgs: msgLedger{byText: map[string]*chaosMsg{}, session: map[string]string{}, opened: map[string]*chaosMsg{}}}
	if ownershipMode == "etcd" {
		cluster := etcdtest.Start(t, etcdtest.Options{Host: nets[0].etcdIP, Members: 3})
		c.fleet = &fleet{t: t, cluster: cluster, cli: cluster.Client(t), f: f, ttl: chaosFleetTTL}
		t.Cleanup(c.fleet.killDaemons)
		for i, n := range nets {
			m := &chaosMachine{id: fmt.Sprintf("m%d", i+1), e: newE2EWith(t, f), net: n}
			m.e.wrap = n.wrap()
			m.args = c.fleet.args(&fleetMachine{id: m.id})
			c.machines = append(c.machines, m)
		}
	} else {
		c.machines = []*chaosMachine{{id: "local", e: newE2EWith(t, f)}}
	}
	for _, m := range c.machines {
		for _, b := range bots {
			if b.provider == "discord" {
				m.e.env = append(m.e.env, b.tokenEnv[0]+"="+b.token)
			} else {
				m.e.env = append(m.e.env, b.tokenEnv[0]+"=xoxb-"+b.name, b.tokenEnv[1]+"="+b.token)
			}
		}
	}
	t.Cleanup(c.thaw)
	return c
}

// specText is the run's spec: every bot Running at its generation.
func (c *chaos) specText() string {
	var docs []string
	for _, b := range c.bots {
		doc := fmt.Sprintf("apiVersion: reconciler.gjc.dev/v1alpha1\nkind: ChatDaemon\nmetadata:\n  name: %s\nspec:\n  provider: %s\n  generation: %d\n  state: Running\n  readyTimeout: 30s\n  gracefulTimeout: 10s\n  killTimeout: 5s\n  verbosity: verbose\n",
			b.name, b.provider, b.generation)
		if b.provider == "discord" {
			doc += fmt.Sprintf("  discord:\n    botToken: {fromEnv: %s}\n    applicationId: app-%s\n    guildId: %q\n    parentChannelId: chan-3\n    apiURL: %s\n",
				b.tokenEnv[0], b.name, c.f.discord.GuildID(), c.f.discord.URL())
		} else {
			doc += fmt.Sprintf("  slack:\n    botToken: {fromEnv: %s}\n    appToken: {fromEnv: %s}\n    workspaceId: %s\n    channelId: C1\n    apiURL: %s\n",
				b.tokenEnv[0], b.tokenEnv[1], c.f.slack.TeamID(), c.f.slack.URL())
		}
		docs = append(docs, doc)
	}
	return strings.Join(docs, "---\n")
}

// writeSpec replaces m's spec by rename, as an editor does.
func (c *chaos) writeSpec(m *chaosMachine, text string) {
	tmp := m.e.specPath + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Rename(tmp, m.e.specPath); err != nil {
		c.t.Fatal(err)
	}
}

// writeSpecs gives every machine the spec, one after another, as an
// operator's rollout of one file does.
func (c *chaos) writeSpecs(text string) {
	for _, m := range c.machines {
		c.writeSpec(m, text)
	}
}

func (c *chaos) note(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, fmt.Sprintf("%8.3fs ", time.Since(c.start).Seconds())+fmt.Sprintf(format, args...))
}

// fault is one planned fault: its kind, when, and the draws it makes.
type fault struct {
	at      time.Duration
	kind    string
	bot     int     // which bot it aims at
	machine int     // which machine (etcd mode; files mode has one)
	x       float64 // a draw in [0,1) for its size or length
}

type faultKind struct {
	kind   string
	weight int
}

// filesFaults and their weights: process faults, operator commands, the
// files on disk, the spec, and the chat services.
var filesFaults = []faultKind{
	{"kill9-daemon", 8}, {"stop-daemon", 6}, {"kill9-loop", 3}, {"stop-loop", 3},
	{"once", 4}, {"op-stop", 2}, {"op-start", 3}, {"op-restart", 3},
	{"truncate-state", 4}, {"garbage-state", 4}, {"garbage-lock", 3}, {"truncate-lock", 2},
	{"garbage-control", 3}, {"delete-lock", 3}, {"canary-record", 3},
	{"rm-daemon-dir", 2}, {"rm-sdk", 1},
	{"spec-valid", 3}, {"spec-invalid", 3},
	{"fake-drop", 4}, {"fake-429", 4}, {"fake-accept-fail", 4}, {"fake-outage", 2},
}

// fleetFaults are etcd mode's: the machines' own (kill -9 of a whole
// machine, a partition from the cluster), the cluster's (a member lost),
// and the files mode's that a fleet has. Records, locks and control
// requests live in etcd there, so the faults of their files do not apply;
// a record naming the canary is put in etcd.
var fleetFaults = []faultKind{
	{"kill9-daemon", 8}, {"stop-daemon", 6}, {"kill9-loop", 3}, {"stop-loop", 3},
	{"kill9-machine", 3}, {"partition", 5}, {"member-loss", 3}, {"canary-record", 3},
	{"once", 4}, {"op-stop", 2}, {"op-start", 3}, {"op-restart", 3},
	{"rm-daemon-dir", 2}, {"rm-sdk", 1},
	{"spec-valid", 3}, {"spec-invalid", 3},
	{"fake-drop", 4}, {"fake-429", 4}, {"fake-accept-fail", 4}, {"fake-outage", 2},
}

// plan draws n faults of kinds over d from the seed.
func (c *chaos) plan(n int, d time.Duration, kinds []faultKind) []fault {
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	out := make([]fault, n)
	for i := range out {
		w := c.rng.IntN(total)
		kind := ""
		for _, k := range kinds {
			if w < k.weight {
				kind = k.kind
				break
			}
			w -= k.weight
		}
		out[i] = fault{at: time.Duration(c.rng.Int64N(int64(d))), kind: kind, bot: c.rng.IntN(len(c.bots)), x: c.rng.Float64()}
		if len(c.machines) > 1 { // drawn only then: a files-mode seed replays as before
			out[i].machine = c.rng.IntN(len(c.machines))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

func (c *chaos) run(n int, d time.Duration) {
	t := c.t
	c.startCanary()
	c.writeSpecs(c.specText())
	for _, m := range c.machines {
		c.startLoop(m)
	}
	if !c.waitConverged(3*e2eDeadline, false) {
		t.Fatalf("not converged before the first fault: %s", c.notConverged())
	}
	kinds, mode := filesFaults, "files"
	if c.fleet != nil {
		kinds, mode = fleetFaults, fmt.Sprintf("etcd (%d machines, %d members, lease TTL %v)", len(c.machines), c.fleet.cluster.Members(), c.fleet.ttl)
	}
	faults := c.plan(n, d, kinds)
	fmt.Printf("chaos: seed %d, %d faults over %v, %d daemons (%s), ownership %s\n", c.seed, n, d, len(c.bots), c.botNames(), mode)

	c.start = time.Now()
	c.startWriting()
	c.t.Cleanup(c.stopWriting)
	stopOperator := c.startOperator()
	c.t.Cleanup(stopOperator)
	for _, f := range faults {
		if wait := time.Until(c.start.Add(f.at)); wait > 0 {
			time.Sleep(wait) // the schedule: the next fault's time
		}
		c.inject(f)
	}
	lastFault := time.Now()
	stopOperator()
	c.stopWriting()
	c.note("last fault; restoring the operator's intent")
	c.restore()
	restored := time.Now()
	converged := c.waitConverged(chaosConvergeBound, true)
	convergeTime := time.Since(restored)
	// Messages are judged once they could all be posted (a part whose
	// attempt a fault cut is looked up again only after the relay's
	// Settle, and Slack's pace is one post a second), and again once
	// every outbox is empty and a Settle more has passed: a wrong "not
	// found" would show as a late second copy.
	c.waitPosted(chaosPostBound - time.Since(lastFault))
	postedTime := time.Since(lastFault)
	c.waitOutboxesEmpty(chaosPostBound - time.Since(lastFault))
	c.note("outboxes empty; a Settle more before judging")
	time.Sleep(chaosSettle) // the judged window itself: a late copy lands within it
	posted, doubles, losses, wiped := c.judgeMessages()
	var violations []string
	if !converged {
		violations = append(violations, fmt.Sprintf("not converged within %v of the restore: %s", chaosConvergeBound, c.notConverged()))
	}
	violations = append(violations, c.threadViolations()...)
	violations = append(violations, c.sessionViolations()...)
	violations = append(violations, c.canaryViolations()...)
	for _, d := range doubles {
		violations = append(violations, "posted more than once: "+d)
	}
	for _, l := range losses {
		violations = append(violations, "never posted: "+l)
	}

	fmt.Println("chaos: faults injected by kind:")
	injected := make([]string, 0, len(c.counts))
	for k := range c.counts {
		injected = append(injected, k)
	}
	sort.Strings(injected)
	for _, k := range injected {
		fmt.Printf("  %-18s %d\n", k, c.counts[k])
	}
	if len(violations) > 0 || *chaosEvents {
		fmt.Printf("chaos: event log (seed %d):\n  %s\n", c.seed, strings.Join(c.log, "\n  "))
		for _, v := range violations {
			fmt.Println("chaos: VIOLATION:", v)
		}
	}
	fmt.Printf("chaos: faults %d, violations %d; restore %s, then converged in %s; every message posted %s after the last fault; operator repairs %d (every 2 s, as docs/troubleshooting.md says); messages written %d, posted %d, taken by rm -rf of sdk/ before posting %d, doubles %d, losses %d; seed %d\n",
		n, len(violations), restored.Sub(lastFault).Round(10*time.Millisecond), convergeTime.Round(10*time.Millisecond),
		postedTime.Round(10*time.Millisecond), c.repairs, len(c.msgs.byText), posted, wiped, len(doubles), len(losses), c.seed)
	if len(violations) > 0 {
		t.Fatalf("%d violations; replay with hack/chaos --seed %d --faults %d --duration %v --ownership %s", len(violations), c.seed, n, d, *chaosOwnership)
	}
}

func (c *chaos) botNames() string {
	var names []string
	for _, b := range c.bots {
		names = append(names, b.name+" "+b.provider)
	}
	return strings.Join(names, ", ")
}

// startLoop starts m's loop at verbosity 1, which its daemons inherit: a
// violation's daemon logs then say what each relay did.
func (c *chaos) startLoop(m *chaosMachine) {
	loop := m.e.startLoop(append(append([]string{}, m.args...), "-v", "1")...)
	c.mu.Lock()
	m.loop = loop
	c.mu.Unlock()
}

// restartLoop starts m's loop again unless it runs: a machine back up.
func (c *chaos) restartLoop(m *chaosMachine, why string) {
	c.mu.Lock()
	loop := m.loop
	c.mu.Unlock()
	select {
	case <-loop.done:
	default:
		return
	}
	c.startLoop(m)
	c.note("%s: %s's loop started again", why, m.id)
}

func (c *chaos) loopOf(m *chaosMachine) *loopProc {
	c.mu.Lock()
	defer c.mu.Unlock()
	return m.loop
}
