package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/spec"
)

// inject applies one fault. Faults that last (a SIGSTOP, an outage) end
// on their own timer; commands run in the background, as a second shell's
// would.
func (c *chaos) inject(f fault) {
	b, m := c.bots[f.bot], c.machines[f.machine]
	p := ownership.PathsFor(m.e.agentDir, b.name)
	c.mu.Lock()
	c.counts[f.kind]++
	c.mu.Unlock()
	// Garbage is drawn from the fault's own draw, so a seed replays it.
	junk := rand.New(rand.NewPCG(uint64(f.x*(1<<53)), uint64(f.at)))
	switch f.kind {
	case "kill9-daemon":
		procs := c.daemonProcs(b.name)
		if len(procs) == 0 {
			c.note("kill9-daemon %s: none running", b.name)
			return
		}
		pr := procs[int(f.x*float64(len(procs)))]
		err := pr.signal(syscall.SIGKILL)
		c.note("kill9-daemon %s pid %d: %v", b.name, pr.pid, err)
		c.forget(pr.pid)
		closeAll(procs)
	case "stop-daemon":
		procs := c.daemonProcs(b.name)
		if len(procs) == 0 {
			c.note("stop-daemon %s: none running", b.name)
			return
		}
		pr := procs[int(f.x*float64(len(procs)))]
		c.freeze(pr, 50*time.Millisecond+time.Duration(f.x*float64(c.daemonFreezeMax())))
		for _, o := range procs {
			if o.pid != pr.pid {
				o.close()
			}
		}
	case "kill9-loop":
		loop := c.loopOf(m)
		c.killLoop(m, loop)
		c.note("kill9-loop %s pid %d", m.id, loop.cmd.Process.Pid)
		c.restartLoop(m, "kill9-loop")
	case "stop-loop":
		loop := c.loopOf(m)
		select {
		case <-loop.done:
			c.note("stop-loop %s: the loop has exited", m.id)
			return
		default:
		}
		// Through the loop's own os.Process (a pidfd): never another
		// process that got its pid.
		proc := loop.cmd.Process
		c.freeze(chaosProc{pid: proc.Pid, what: m.id + "'s loop", signal: proc.Signal, close: func() {}},
			100*time.Millisecond+time.Duration(f.x*float64(3*time.Second)))
	case "once":
		c.command(m, "once on "+m.id, append(m.e.args(m.args...), "--once")...)
	case "op-stop", "op-start", "op-restart":
		op := strings.TrimPrefix(f.kind, "op-")
		c.command(m, op+" "+b.name+" on "+m.id, append([]string{op, b.name, "--agent-dir", m.e.agentDir}, m.args...)...)
	case "truncate-state", "truncate-lock":
		file := p.State
		if f.kind == "truncate-lock" {
			file = p.Lock
		}
		fi, err := os.Lstat(file)
		if err != nil || !fi.Mode().IsRegular() {
			c.note("%s %s: not there (%v)", f.kind, b.name, err)
			return
		}
		n := int64(f.x * float64(fi.Size()))
		c.note("%s %s: to %d of %d bytes: %v", f.kind, b.name, n, fi.Size(), os.Truncate(file, n))
	case "garbage-state", "garbage-lock", "garbage-control":
		file := map[string]string{"garbage-state": p.State, "garbage-lock": p.Lock, "garbage-control": p.Control}[f.kind]
		data := garbage(junk)
		c.note("%s %s: %d bytes %q: %v", f.kind, b.name, len(data), clip(data), writeInPlace(file, data))
	case "delete-lock":
		c.note("delete-lock %s: %v", b.name, os.Remove(p.Lock))
	case "canary-record":
		if c.fleet != nil {
			c.note("canary-record %s in etcd, on %s: %v", b.name, m.id, c.plantCanaryInEtcd(m, b))
			return
		}
		c.note("canary-record %s: %v", b.name, c.plantCanary(p, b))
	case "rm-daemon-dir":
		c.note("rm-daemon-dir %s on %s: %v", b.name, m.id, removeAll(p.Dir))
	case "rm-sdk":
		c.msgs.mu.Lock()
		for _, msg := range c.msgs.byText {
			if msg.machine == m.id {
				msg.mayLose = true
			}
		}
		err := removeAll(filepath.Join(m.e.agentDir, "sdk"))
		for key := range c.msgs.session {
			if strings.HasPrefix(key, m.id+"/") {
				delete(c.msgs.session, key) // the next message opens a new session
			}
		}
		c.msgs.mu.Unlock()
		c.note("rm-sdk on %s: %v", m.id, err)
	case "spec-valid":
		b.generation++
		c.writeSpecs(c.specText())
		c.note("spec-valid: %s to generation %d", b.name, b.generation)
	case "spec-invalid":
		// Never a prefix of the valid spec: one cut inside an apiURL is
		// valid and points a bot at a real service.
		valid := c.specText()
		bad := []string{
			"apiVersion: reconciler.gjc.dev/v1alpha1\nkind: ChatDaemon\n  metadata: [unclosed\n",
			strings.Replace(valid, "provider: slack", "provider: telegram", 1),
			strings.Replace(valid, "generation: ", "generation: -", 1),
			string(garbage(junk)),
		}[junk.IntN(4)]
		c.writeSpec(m, bad)
		c.note("spec-invalid on %s: %d bytes %q", m.id, len(bad), clip([]byte(bad)))
	case "fake-drop":
		if b.provider == "discord" {
			c.note("fake-drop discord: %d dropped", c.f.discord.DropConnections())
		} else {
			c.note("fake-drop slack: %d dropped", c.f.slack.DropConnections())
		}
	case "fake-429":
		n, after := 1+int(f.x*20), 100*time.Millisecond+time.Duration(f.x*float64(900*time.Millisecond))
		if b.provider == "discord" {
			c.f.discord.RateLimitNext(n, after)
		} else {
			c.f.slack.RateLimitNext(n, after)
		}
		c.note("fake-429 %s: the next %d requests, retry after %v", b.provider, n, after)
	case "fake-accept-fail":
		n, cut := 1+int(f.x*3), junk.IntN(2) == 0
		if b.provider == "discord" {
			mode := fakediscord.FailBadGateway
			if cut {
				mode = fakediscord.FailCut
			}
			c.f.discord.AcceptThenFail(n, mode)
		} else {
			mode := fakeslack.Fail502
			if cut {
				mode = fakeslack.FailCut
			}
			c.f.slack.AcceptThenFail(n, mode)
		}
		c.note("fake-accept-fail %s: the next %d posts accepted, then answered with a failure (cut %v)", b.provider, n, cut)
	case "fake-outage":
		d := 500*time.Millisecond + time.Duration(f.x*float64(2500*time.Millisecond))
		c.setUnavailable(b.provider, true)
		time.AfterFunc(d, func() { c.setUnavailable(b.provider, false) })
		c.note("fake-outage %s for %v", b.provider, d)
	case "kill9-machine":
		c.crashMachine(m, time.Second+time.Duration(f.x*float64(4*time.Second)))
	case "partition":
		c.partition(m, time.Second+time.Duration(f.x*float64(3*chaosFleetTTL)))
	case "member-loss":
		c.loseMember(f.bot%c.fleet.cluster.Members(), time.Second+time.Duration(f.x*float64(9*time.Second)))
	default:
		c.t.Fatalf("unknown fault %q", f.kind)
	}
}

func (c *chaos) setUnavailable(provider string, on bool) {
	if provider == "discord" {
		c.f.discord.SetUnavailable(on)
	} else {
		c.f.slack.SetUnavailable(on)
	}
}

// chaosProc is a process the run found and holds a pidfd to, so a signal
// never reaches a recycled pid.
type chaosProc struct {
	pid    int
	what   string
	signal func(os.Signal) error
	close  func()
}

func closeAll(ps []chaosProc) {
	for _, p := range ps {
		p.close()
	}
}

// daemonProcs are the live processes started as name's daemon in any
// machine's agent dir ("": any name's), found by their command line
// (e2e.openDaemons): a record may be garbage, and a warm replacement has
// none.
func (c *chaos) daemonProcs(name string) []chaosProc {
	var out []chaosProc
	for _, m := range c.machines {
		out = append(out, m.daemonProcs(name)...)
	}
	return out
}

func (m *chaosMachine) daemonProcs(name string) []chaosProc {
	var out []chaosProc
	for _, proc := range m.e.openDaemons(name) {
		out = append(out, chaosProc{pid: proc.PID(), what: m.id + "'s daemon " + name,
			signal: func(s os.Signal) error { return proc.Signal(s.(syscall.Signal)) },
			close:  func() { _ = proc.Close() }})
	}
	return out
}

// daemonFreezeMax bounds a daemon's SIGSTOP. In etcd mode it stays under
// the lease's margin less a renewal period: a daemon frozen past the
// moment its lease may expire cannot stop its own connection, and no
// lease can fence a paused process (the service itself would have to).
// That limit is the design's, and docs/fleet.md states it; the run tries
// the pauses the design promises to survive.
func (c *chaos) daemonFreezeMax() time.Duration {
	if c.fleet == nil {
		return 3 * time.Second
	}
	return chaosFleetTTL - etcdstore.Margin(chaosFleetTTL) - chaosFleetTTL/3 - 500*time.Millisecond
}

// killLoop SIGKILLs m's loop and waits for it.
func (c *chaos) killLoop(m *chaosMachine, loop *loopProc) {
	_ = loop.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-loop.done:
	case <-time.After(e2eDeadline):
		c.t.Fatalf("%s's loop (pid %d) did not exit within %v of SIGKILL", m.id, loop.cmd.Process.Pid, e2eDeadline)
	}
	c.forget(loop.cmd.Process.Pid)
}

// freeze SIGSTOPs p and SIGCONTs it after d (or at restore).
func (c *chaos) freeze(p chaosProc, d time.Duration) {
	if err := p.signal(syscall.SIGSTOP); err != nil {
		c.note("SIGSTOP %s pid %d: %v", p.what, p.pid, err)
		p.close()
		return
	}
	c.mu.Lock()
	c.frozen[p.pid] = p
	c.mu.Unlock()
	c.note("SIGSTOP %s pid %d for %v", p.what, p.pid, d)
	time.AfterFunc(d, func() { c.cont(p.pid) })
}

// cont SIGCONTs a frozen pid, once.
func (c *chaos) cont(pid int) {
	c.mu.Lock()
	p, ok := c.frozen[pid]
	delete(c.frozen, pid)
	c.mu.Unlock()
	if !ok {
		return
	}
	_ = p.signal(syscall.SIGCONT)
	p.close()
}

// forget drops a killed pid from the frozen ones: nothing to continue.
func (c *chaos) forget(pid int) {
	c.mu.Lock()
	p, ok := c.frozen[pid]
	delete(c.frozen, pid)
	c.mu.Unlock()
	if ok {
		p.close()
	}
}

// thaw continues every frozen process.
func (c *chaos) thaw() {
	c.mu.Lock()
	pids := make([]int, 0, len(c.frozen))
	for pid := range c.frozen {
		pids = append(pids, pid)
	}
	c.mu.Unlock()
	for _, pid := range pids {
		c.cont(pid)
	}
}

// command runs the binary on m in the background with args, bounded, as
// an operator's second shell would.
func (c *chaos) command(m *chaosMachine, what string, args ...string) {
	c.running.Add(1)
	c.inFlight.Add(1)
	go func() {
		defer c.running.Done()
		defer c.inFlight.Add(-1)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, args...)
		cmd.Env = m.e.env
		out, err := cmd.CombinedOutput()
		c.note("%s: exit %v: %s", what, exitOf(err), clip(lastLine(out)))
	}()
}

func exitOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return strconv.Itoa(ee.ExitCode())
	}
	if err != nil {
		return err.Error()
	}
	return "0"
}

func lastLine(b []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return lines[len(lines)-1]
}

// plantCanary writes a well-formed record that names the canary, with its
// real incarnation, at a generation behind the spec: a loop that believed
// it would stop and replace it.
func (c *chaos) plantCanary(p ownership.Paths, b *chaosBot) error {
	data, err := c.canaryRecord(b, "")
	if err != nil {
		return err
	}
	return writeInPlace(p.State, data)
}

// plantCanaryInEtcd puts the same record in etcd, naming machine m (where
// the canary does run): as one left by an operator's etcdctl, or a bug.
func (c *chaos) plantCanaryInEtcd(m *chaosMachine, b *chaosBot) error {
	data, err := c.canaryRecord(b, m.id)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = c.fleet.cli.Put(ctx, path.Join(etcdstore.DefaultPrefix, b.name, ownership.StateFile), string(data))
	return err
}

func (c *chaos) canaryRecord(b *chaosBot, machine string) ([]byte, error) {
	pid := c.canary.Process.Pid
	inc, err := platform.Incarnation(pid)
	if err != nil {
		return nil, err
	}
	boot, err := platform.BootID()
	if err != nil {
		return nil, err
	}
	gen := b.generation - 1
	now := time.Now().UnixMilli()
	kind := b.provider
	s := ownership.State{Version: ownership.RecordVersion, Kind: kind, PID: pid, OwnerID: fmt.Sprintf("%d-forged", pid),
		Identity: "0123456789abcdef", Incarnation: inc, StartedAt: now, HeartbeatAt: now, TransportHealthy: true,
		Generation: spec.Generation(gen).Opt(), BootID: boot, Machine: machine}
	return json.Marshal(s)
}

// writeInPlace overwrites file, as a careless editor or a crash mid-write
// would leave it; a missing dir stays missing.
func writeInPlace(file string, data []byte) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}

// removeAll is an operator's rm -rf: tried again while a daemon writes
// into the dir as it goes.
func removeAll(dir string) error {
	var err error
	for range 100 {
		if err = os.RemoveAll(dir); !errors.Is(err, syscall.ENOTEMPTY) {
			return err
		}
	}
	return err
}

// garbage is bytes a reader must refuse: random bytes, JSON of the wrong
// shape, or a record cut short.
func garbage(r *rand.Rand) []byte {
	switch r.IntN(4) {
	case 0:
		b := make([]byte, 1+r.IntN(200))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	case 1:
		return []byte(`{"version":1,"pid":"not a number","ownerId":7}`)
	case 2:
		return []byte(`{"version":1,"kind":"slack","pid":1,"ownerId":"x","incarnation":"linux:1"`)
	default:
		return []byte("[]")
	}
}

func clip(b []byte) string {
	if len(b) > 60 {
		b = b[:60]
	}
	return string(b)
}
