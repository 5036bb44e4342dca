package systemtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// startCanary starts the canary: this test binary again, recording every
// signal it catches; SIGKILL and SIGSTOP it cannot catch are seen by its
// death and its state.
func (c *chaos) startCanary() {
	c.canaryFile = filepath.Join(c.t.TempDir(), "canary-signals")
	cmd := exec.Command(os.Args[0], "-test.run=^TestChaosCanary$")
	cmd.Env = append(os.Environ(), "CHAOS_CANARY="+c.canaryFile)
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.canary, c.canaryExited = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); close(c.canaryExited) }()
	c.t.Cleanup(func() { _ = cmd.Process.Kill(); <-c.canaryExited })
	deadline := time.Now().Add(e2eDeadline)
	for {
		if b, _ := os.ReadFile(c.canaryFile); strings.HasPrefix(string(b), "READY") {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatal("the canary did not start")
		}
		time.Sleep(20 * time.Millisecond) // a poll, bounded by the deadline
	}
}

func (c *chaos) canaryViolations() []string {
	var out []string
	b, err := os.ReadFile(c.canaryFile)
	if err != nil {
		return []string{"the canary's signal file: " + err.Error()}
	}
	if got := strings.TrimSpace(strings.TrimPrefix(string(b), "READY")); got != "" {
		out = append(out, "the canary was signalled: "+strings.ReplaceAll(got, "\n", ", "))
	}
	select {
	case <-c.canaryExited:
		return append(out, "the canary is gone: "+c.canary.ProcessState.String())
	default:
	}
	// Still our child (not reaped), so its pid is still its own.
	if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.canary.Process.Pid)); err != nil {
		out = append(out, "the canary's state: "+err.Error())
	} else if _, rest, ok := strings.Cut(string(st), ") "); ok && (strings.HasPrefix(rest, "T") || strings.HasPrefix(rest, "Z")) {
		out = append(out, "the canary is stopped or dead: state "+rest[:1])
	}
	return out
}

// startWriting writes outbox traffic until stopWriting: a message to a
// random bot every 300-1300 ms, each in its bot's current session, opened
// first.
func (c *chaos) startWriting() {
	ctx, cancel := context.WithCancel(context.Background())
	c.writing, c.written = cancel, make(chan struct{})
	rng := rand.New(rand.NewPCG(uint64(c.seed), 0x0b0c))
	go func() {
		defer close(c.written)
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(300*time.Millisecond + time.Duration(rng.Int64N(int64(time.Second)))):
			}
			b := c.bots[rng.IntN(len(c.bots))]
			m := c.machines[0]
			if len(c.machines) > 1 { // drawn only then: a files-mode seed replays as before
				m = c.machines[rng.IntN(len(c.machines))]
			}
			c.writeOne(m, b)
		}
	}()
}

func (c *chaos) stopWriting() {
	c.stopped.Do(func() {
		c.writing()
		<-c.written
	})
}

// writeOne queues one message for b on m, as an agent there does: the bus
// dirs made if an rm -rf took them. Under the ledger's lock, so an rm -rf
// of sdk/ comes wholly before or after it.
func (c *chaos) writeOne(m *chaosMachine, b *chaosBot) {
	l := &c.msgs
	l.mu.Lock()
	defer l.mu.Unlock()
	dirs, err := bus.Paths(m.e.agentDir, b.name)
	if err != nil {
		c.t.Error(err)
		return
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		c.note("write %s on %s: %v", b.name, m.id, err)
		return
	}
	var plan []bus.Message
	key := m.id + "/" + b.name
	session, ok := l.session[key]
	if !ok {
		l.seq++
		session = fmt.Sprintf("chaos-%s-%d", b.name, l.seq)
		l.session[key] = session
		plan = append(plan, bus.Message{Session: session, Event: bus.EventOpen, Title: "Chaos " + session, Text: session + " opened"})
	}
	opening := !ok
	l.seq++
	plan = append(plan, bus.Message{Session: session, Text: fmt.Sprintf("%s message %d", b.name, l.seq)})
	for _, msg := range plan {
		_, err := bus.Write(dirs.Outbox, msg)
		if err != nil {
			c.note("write %s on %s %q: %v", b.name, m.id, msg.Text, err)
		}
		// One not written may still have landed; it may be missing,
		// never doubled.
		cm := &chaosMsg{bot: b.name, machine: m.id, text: msg.Text, mayLose: err != nil}
		l.byText[msg.Text] = cm
		if opening && msg.Event == bus.EventOpen {
			l.opened[msg.Title] = cm
		}
	}
}

// restore is the operator's last word: everything continued, the services
// back (and in etcd mode every machine and member), every loop running,
// the last good spec, and every name started (a stop's hold cleared) once
// the commands in flight have ended.
func (c *chaos) restore() {
	c.thaw()
	c.f.discord.SetUnavailable(false)
	c.f.slack.SetUnavailable(false)
	c.restoreFleet()
	for _, m := range c.machines {
		c.restartLoop(m, "restore")
	}
	c.writeSpecs(c.specText())
	c.running.Wait()
	// A stop's hold is each machine's own: started on every one.
	for _, m := range c.machines {
		for _, b := range c.bots {
			cmd := exec.Command(binary, append([]string{"start", b.name, "--agent-dir", m.e.agentDir}, m.args...)...)
			cmd.Env = m.e.env
			out, err := cmd.CombinedOutput()
			c.note("restore: start %s on %s: exit %v: %s", b.name, m.id, exitOf(err), clip(lastLine(out)))
		}
	}
}

// waitConverged polls, within d, until the world is converged. With
// repair, it does what docs/troubleshooting.md tells an operator for a
// name refused on a file it will not touch, as the operator would.
func (c *chaos) waitConverged(d time.Duration, repair bool) bool {
	deadline := time.Now().Add(d)
	// Converged on two looks chaosStable apart, the loop running: a
	// status.json the loop wrote before the last fault must not pass.
	var since time.Time
	for {
		if c.notConverged() == "" && c.loopsRunning() {
			if since.IsZero() {
				since = time.Now()
			} else if time.Since(since) >= chaosStable {
				return true
			}
		} else {
			since = time.Time{}
		}
		if repair {
			c.repair()
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond) // a poll, bounded by the deadline
	}
}

// notConverged says what is not yet as it should be; "" when converged:
// on every machine the spec valid and every name Running at its
// generation in status.json (Ready on the machine that runs it), one live
// session per bot at the fake, and in etcd mode every machine showing the
// name on the machine etcd says holds it.
func (c *chaos) notConverged() string {
	statuses := make(map[*chaosMachine]*reconcile.Status, len(c.machines))
	for _, m := range c.machines {
		st, err := reconcile.ReadStatus(m.e.agentDir)
		if err != nil {
			return m.id + "'s status.json: " + err.Error()
		}
		statuses[m] = st
		if !st.SpecValid {
			return "the spec is not valid in " + m.id + "'s status.json"
		}
		for _, b := range c.bots {
			d, ok := daemonStatus(st, b.name)
			if !ok || d.Phase != reconcile.PhaseRunning {
				return fmt.Sprintf("%s on %s: %s %s %q", b.name, m.id, d.Phase, d.Reason, d.Message)
			}
			if d.Generation != spec.Generation(b.generation).Opt() {
				return fmt.Sprintf("%s on %s: at generation %v, the spec's is %d", b.name, m.id, d.Generation, b.generation)
			}
			if (d.Machine == "" || d.Machine == m.id) && (!d.Converged || d.Reason != reconcile.ReasonReady) {
				return fmt.Sprintf("%s on %s: %s %s %q", b.name, m.id, d.Phase, d.Reason, d.Message)
			}
		}
	}
	for _, b := range c.bots {
		if live, _ := c.sessions(b); live != 1 {
			return fmt.Sprintf("%s: %d live sessions at the fake", b.name, live)
		}
	}
	if c.fleet != nil {
		return c.fleetConverged(statuses)
	}
	return ""
}

// chaosStable is how long convergence must hold to count.
const chaosStable = 3 * time.Second

func (c *chaos) loopsRunning() bool {
	for _, m := range c.machines {
		select {
		case <-c.loopOf(m).done:
			return false
		default:
		}
	}
	return true
}

// waitOutboxesEmpty polls, within d, until no bot's outbox holds a file
// on any machine, nor (etcd mode) a message forwarded into etcd.
func (c *chaos) waitOutboxesEmpty(d time.Duration) {
	deadline := time.Now().Add(d)
	for {
		empty := true
		for _, m := range c.machines {
			for _, b := range c.bots {
				dirs, err := bus.Paths(m.e.agentDir, b.name)
				if err != nil {
					c.t.Fatal(err)
				}
				if names, err := bus.ListOutbox(dirs.Outbox); err == nil && len(names) > 0 {
					empty = false
				}
			}
		}
		if c.fleet != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			n, err := c.fleetOutboxed(ctx)
			cancel()
			if err != nil || n > 0 {
				empty = false
			}
		}
		if empty || time.Now().After(deadline) {
			return
		}
		time.Sleep(200 * time.Millisecond) // a poll, bounded by the deadline
	}
}

// threadViolations: every session's root (Slack) or thread (Discord) was
// made exactly once; one whose open message an rm -rf of sdk/ may have
// taken at most once.
func (c *chaos) threadViolations() []string {
	views := c.views()
	c.msgs.mu.Lock()
	defer c.msgs.mu.Unlock()
	var out []string
	for title, m := range c.msgs.opened {
		v := views[c.botNamed(m.bot).provider]
		n := len(v.places[title])
		switch {
		case n > 1:
			out = append(out, fmt.Sprintf("%q made %d times (on %s): %s", title, n, m.machine, v.around(m.text)))
		case n == 0 && !m.mayLose:
			out = append(out, fmt.Sprintf("%q never made (on %s): %s", title, m.machine, v.around(m.text)))
		}
	}
	return out
}

// around shows, for a violation, where the post of text went and what
// else is in that place.
func (v frView) around(text string) string {
	var out []string
	for _, p := range v.posts {
		if p.text == text {
			out = append(out, fmt.Sprintf("posted in %q with %q", p.place, v.in(p.place)))
		}
	}
	if len(out) == 0 {
		return "its open message was never posted"
	}
	return strings.Join(out, "; ")
}

// unposted is how many messages that may not be lost are not yet posted.
func (c *chaos) unposted() int {
	views := c.views()
	c.msgs.mu.Lock()
	defer c.msgs.mu.Unlock()
	missing := 0
	for _, m := range c.msgs.byText {
		if !m.mayLose && views[c.botNamed(m.bot).provider].count(m.text) == 0 {
			missing++
		}
	}
	return missing
}

// waitPosted polls, within d, until every message that may not be lost
// is posted.
func (c *chaos) waitPosted(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for c.unposted() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Millisecond) // a poll, bounded by the deadline
	}
	return true
}

// startOperator runs an operator who, every 2 s through the run, repairs what the loop refuses by design, as one watching status
// would: a name refused on a broken file stays down until someone acts.
func (c *chaos) startOperator() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				c.repair()
			}
		}
	}()
	return func() { cancel(); <-done }
}

// repair applies the documented remedy to each name refused on a file the
// loop will not touch: a malformed record with no daemon of the name
// running is moved aside; a malformed lock whose process is no daemon of
// the name, and a malformed control request, are removed.
//
// Files mode only: in etcd mode no fault leaves a file the loop refuses,
// so a refusal there stays one and shows as not converged.
func (c *chaos) repair() {
	if c.fleet != nil {
		return
	}
	c.repairMu.Lock()
	defer c.repairMu.Unlock()
	e := c.machines[0].e
	st, err := reconcile.ReadStatus(e.agentDir)
	if err != nil {
		return
	}
	for _, b := range c.bots {
		d, ok := daemonStatus(st, b.name)
		if !ok {
			continue
		}
		// Only a refusal seen on two looks in a row: a status not yet
		// rewritten may still show one the last repair fixed.
		seen := c.refusedLast[b.name] == d.Reason
		c.refusedLast[b.name] = d.Reason
		if !seen {
			continue
		}
		delete(c.refusedLast, b.name)
		p := ownership.PathsFor(e.agentDir, b.name)
		switch d.Reason {
		case ownership.ReasonMalformedOwnerRecord:
			if c.daemonRuns(b.name) {
				continue
			}
			c.repairs++
			aside := filepath.Join(e.agentDir, fmt.Sprintf("aside-%s-%d", b.name, c.repairs))
			c.note("repair %s (%s): mv the daemon dir aside: %v", b.name, d.Reason, os.Rename(p.Dir, aside))
		case ownership.ReasonMalformedOwnerLock:
			if c.daemonRuns(b.name) {
				continue
			}
			c.repairs++
			c.note("repair %s (%s): rm owner.lock and its reclaim: %v %v", b.name, d.Reason, os.Remove(p.Lock), os.Remove(p.Reclaim))
		case ownership.ReasonMalformedControl:
			if c.inFlight.Load() > 0 {
				continue // "once no stop or restart is running"
			}
			c.repairs++
			c.note("repair %s (%s): rm control.json: %v", b.name, d.Reason, os.Remove(p.Control))
		}
	}
}

// views are both fakes as they stand, by provider.
func (c *chaos) views() map[string]frView {
	return map[string]frView{"discord": frSnapshot(c.f, "discord"), "slack": frSnapshot(c.f, "slack")}
}

// daemonRuns reports whether a daemon of name is alive: the docs' repairs
// of a record or a lock apply only when none is.
func (c *chaos) daemonRuns(name string) bool {
	procs := c.daemonProcs(name)
	closeAll(procs)
	return len(procs) > 0
}

func (c *chaos) botNamed(name string) *chaosBot {
	for _, b := range c.bots {
		if b.name == name {
			return b
		}
	}
	c.t.Fatalf("no bot %s", name)
	return nil
}

// sessions is what b's fake counts of its connections: live now, and the
// most ever live at once.
func (c *chaos) sessions(b *chaosBot) (live, maxLive int) {
	if b.provider == "discord" {
		s := c.f.discord.Snapshot().Tokens[b.token]
		return s.Live, s.MaxLive
	}
	s := c.f.slack.Snapshot().Apps[b.token]
	return s.Live, s.MaxLive
}

func (c *chaos) sessionViolations() []string {
	var out []string
	for _, b := range c.bots {
		if _, maxLive := c.sessions(b); maxLive > 1 {
			out = append(out, fmt.Sprintf("%s: the fake saw %d live sessions at once", b.name, maxLive))
		}
	}
	return out
}

// judgeMessages counts, at the fakes, how often each written message was
// posted.
func (c *chaos) judgeMessages() (posted int, doubles, losses []string, wiped int) {
	views := c.views()
	c.msgs.mu.Lock()
	defer c.msgs.mu.Unlock()
	for _, m := range c.msgs.byText {
		n := views[c.botNamed(m.bot).provider].count(m.text)
		switch {
		case n > 1:
			doubles = append(doubles, fmt.Sprintf("%q %d times", m.text, n))
		case n == 0 && m.mayLose:
			wiped++
		case n == 0:
			losses = append(losses, fmt.Sprintf("%q (%s)", m.text, m.bot))
		}
		if n > 0 {
			posted++
		}
	}
	return posted, doubles, losses, wiped
}
