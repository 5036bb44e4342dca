package reconcile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// A warm replacement (a standby) is the next daemon of a running name,
// started ahead of time by the loop exactly as spawn would start it, except
// that its config is not written to its stdin yet. Most of a restart's
// latency is the binary's own start (loading, page faults, package init);
// the daemon reads its config before it does anything else, so a standby
// sits initialised, blocked on that read, owning and publishing nothing.
// When the loop spawns that name, spawn hands the standby the config
// instead of starting a process.
//
// The rules, and where each is kept:
//   - A standby is used only for the very launch a spawn would start:
//     handOver compares its key (executable and its file, argv, env; all
//     but the ownerId) and its daemon.log with the spawn's, and starts a
//     fresh process on any difference. keep (after each reconcile of the
//     name) and revalidate (on every spec change) discard a standby that
//     no longer matches, so none lingers with, say, a variable in its
//     environment that a spec now names in fromEnv.
//   - Discarding is closing its stdin: the daemon reads EOF before any
//     byte and exits 0 having written nothing. No signal is ever sent to
//     a standby. If the loop dies, the kernel closes the pipe and the
//     standby exits the same way.
//   - A standby is not an owner: it holds no lock and no record names its
//     ownerId. Until it is handed over, its exit wakes nothing and counts
//     nowhere (restarts, crash loop, inventory, status): it is reaped here.
//   - One standby per name: byName holds at most one, a new one is started
//     only once the old one is dropped, and only the name's own worker
//     starts or hands over its standby (keep and spawn run there).

// Back-off after a standby exits on its own (killed, or a binary that cannot
// start): a standby is an optimisation, never worth a fork loop.
const (
	standbyRetryMin = time.Second
	standbyRetryMax = 5 * time.Minute
)

// handOverTimeout bounds writing the config to a standby. The config fits a
// pipe's buffer (spec caps it at 64 KiB), so the write does not wait on the
// reader; the bound is for a standby that stopped reading.
const handOverTimeout = 2 * time.Second

type standbyState int

const (
	standing  standbyState = iota // idle, waiting for its config
	promoted                      // handed its config: a spawned daemon now
	discarded                     // its stdin closed without a config
)

// standbyKey is everything a daemon's process is started from except its
// ownerId.
type standbyKey struct {
	l   launch      // ownerId blanked
	exe os.FileInfo // the executable as it was when the key was made
}

// keyOf blanks l's ownerId and notes the executable's file, so a binary
// replaced in place (an upgrade) is a different launch.
func keyOf(l launch) (standbyKey, error) {
	exe, err := os.Stat(l.exe)
	if err != nil {
		return standbyKey{}, fmt.Errorf("executable: %w", err)
	}
	args := slices.Clone(l.args)
	if i := slices.Index(args, "--"+daemonproto.FlagOwnerID); i >= 0 && i+1 < len(args) {
		args[i+1] = ""
	}
	return standbyKey{l: launch{exe: l.exe, args: args, env: slices.Clone(l.env)}, exe: exe}, nil
}

func (k standbyKey) equal(o standbyKey) bool {
	return k.l.exe == o.l.exe &&
		slices.Equal(k.l.args, o.l.args) &&
		slices.Equal(k.l.env, o.l.env) &&
		sameExecutable(k.exe, o.exe)
}

// sameExecutable: the same file, not rewritten since (an upgrade in place
// changes its size or mtime, one by rename its inode).
func sameExecutable(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) &&
		a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size() && a.Mode() == b.Mode()
}

type standby struct {
	name  string
	key   standbyKey
	log   os.FileInfo // the daemon.log its stdout and stderr are
	stdin *os.File    // the pipe's write end, held by the loop alone
	c     *child
	state standbyState // guarded by standbys.mu
	once  sync.Once
	// reaped is closed once its reaper is done with it: exit recorded and
	// the set (and, if handed over, the loop) told.
	reaped chan struct{}
}

// closeStdin closes the write end once; later calls return nil.
func (s *standby) closeStdin() (err error) {
	s.once.Do(func() { err = s.stdin.Close() })
	return err
}

// logCurrent reports whether the standby's output still goes to the name's
// daemon.log: after a rotation (or a removed dir) it would go to a file the
// reconciler's crash messages never read.
func (s *standby) logCurrent(paths ownership.Paths) bool {
	cur, err := os.Lstat(filepath.Join(paths.Dir, "daemon.log"))
	return err == nil && os.SameFile(cur, s.log)
}

// standbys are the loop's warm replacements, at most one per name. A nil
// *standbys (--once, stop, restart, or the loop with them turned off) has
// none, and spawn starts every daemon cold.
type standbys struct {
	r *Reconciler
	// desired is the name's object in the loop's current spec: a standby
	// is made for what a spawn would start now, not for the spec a
	// reconcile began with.
	desired func(name string) *spec.Daemon

	mu     sync.Mutex
	byName map[string]*standby
	closed bool
	// epoch counts spec changes: a standby started from the spec before one
	// is dropped rather than kept (revalidate could not see it).
	epoch   uint64
	retryAt map[string]time.Time
	delay   map[string]time.Duration
}

func newStandbys(r *Reconciler, desired func(string) *spec.Daemon) *standbys {
	return &standbys{r: r, desired: desired, byName: map[string]*standby{}, retryAt: map[string]time.Time{}, delay: map[string]time.Duration{}}
}

// keep makes the name's standby match what a spawn would start now, after
// a reconcile of the name whose outcome was out: one is wanted only while
// the name is desired Running and its owner healthy.
func (p *standbys) keep(name string, out Outcome) {
	if p == nil {
		return
	}
	// The epoch before the spec is read: a spec change after this point
	// drops what this call starts, or revalidate sees it.
	p.mu.Lock()
	epoch := p.epoch
	p.mu.Unlock()
	d := p.desired(name)
	if d == nil || d.Config.State != spec.StateRunning || out.Owner == nil || out.Status.Phase != PhaseRunning || !out.Status.Converged {
		p.discard(name, "no healthy owner to stand behind")
		return
	}
	paths := ownership.PathsFor(p.r.opts.AgentDir, name)
	want, err := keyOf(p.r.launchOf(d, paths, ""))
	if err != nil {
		p.discard(name, err.Error())
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	if cur := p.byName[name]; cur != nil {
		switch {
		case !cur.key.equal(want):
			p.dropLocked(cur, "its launch no longer matches the spec")
		case !cur.logCurrent(paths):
			p.dropLocked(cur, "daemon.log was replaced")
		default:
			p.mu.Unlock()
			return
		}
	}
	if time.Now().Before(p.retryAt[name]) {
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()

	s, err := p.start(name, d, paths)
	if err != nil {
		p.r.log.Error(err, "starting a warm replacement; restarts start the daemon cold", "name", name)
		p.mu.Lock()
		p.backOffLocked(name)
		p.mu.Unlock()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.epoch != epoch || p.byName[name] != nil {
		p.dropLocked(s, "superseded while it started")
		return
	}
	p.byName[name] = s
	p.r.log.Info("warm replacement standing by", "name", name, "pid", s.c.pid, "generation", d.Config.Generation)
}

// start starts a standby for d: spawn's launch with a fresh ownerId and
// the read end of a pipe, whose write end only this process holds, as stdin.
func (p *standbys) start(name string, d *spec.Daemon, paths ownership.Paths) (*standby, error) {
	if err := p.r.store.Prepare(name); err != nil {
		return nil, err
	}
	ownerID := newOwnerID()
	l := p.r.launchOf(d, paths, ownerID)
	key, err := keyOf(l)
	if err != nil {
		return nil, err
	}
	// os.Pipe's descriptors are close-on-exec: no other child inherits the
	// write end, so this process's exit is the standby's EOF.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("warm replacement: %w", err)
	}
	cmd, logID, err := p.r.start(l, paths, pr)
	_ = pr.Close()
	if err != nil {
		_ = pw.Close()
		return nil, err
	}
	s := &standby{name: name, key: key, log: logID, stdin: pw,
		c: &child{ownerID: ownerID, pid: cmd.Process.Pid, done: make(chan struct{})}, reaped: make(chan struct{})}
	go p.reap(s, cmd)
	return s, nil
}

// reap waits for a standby. Only a handed-over one is the loop's business
// (a child exit, as for any spawn); a standby's own end is not a daemon's.
func (p *standbys) reap(s *standby, cmd *exec.Cmd) {
	defer close(s.reaped)
	s.c.reap(cmd)
	p.mu.Lock()
	state := s.state
	if p.byName[s.name] == s {
		delete(p.byName, s.name)
	}
	if state == standing {
		p.backOffLocked(s.name)
	}
	p.mu.Unlock()
	switch state {
	case promoted:
		p.r.childExited(s.name, s.c)
	case standing:
		s.closeStdin()
		p.r.log.Info("warm replacement exited while standing by; the next restart starts cold", "name", s.name, "pid", s.c.pid, "how", s.c.exit.String())
	}
}

func (p *standbys) backOffLocked(name string) {
	next := min(max(2*p.delay[name], standbyRetryMin), standbyRetryMax)
	p.delay[name] = next
	p.retryAt[name] = time.Now().Add(next)
}

// handOver gives d's config to the name's standby if it is what spawn
// would start now, and returns it as the spawned child; nil means start
// one cold. The standby leaves the set either way.
func (p *standbys) handOver(d *spec.Daemon, paths ownership.Paths, config []byte) *child {
	if p == nil {
		return nil
	}
	want, kerr := keyOf(p.r.launchOf(d, paths, ""))
	p.mu.Lock()
	s := p.byName[d.Name()]
	if s == nil {
		p.mu.Unlock()
		return nil
	}
	delete(p.byName, d.Name())
	use := false
	switch {
	case kerr != nil:
		p.dropLocked(s, kerr.Error())
	case !s.key.equal(want):
		p.dropLocked(s, "its launch no longer matches the spawn's")
	case !s.logCurrent(paths):
		p.dropLocked(s, "daemon.log was replaced")
	case s.c.exited():
		// Its reaper logs it and backs off.
	default:
		s.state, use = promoted, true
	}
	p.mu.Unlock()
	if !use {
		return nil
	}
	err := s.stdin.SetWriteDeadline(time.Now().Add(handOverTimeout))
	if err == nil {
		_, err = s.stdin.Write(config)
	}
	// Closed at once: the daemon reads its config to EOF.
	if cerr := s.closeStdin(); err == nil {
		err = cerr
	}
	if err != nil {
		// It exited meanwhile, or stopped reading: with its config cut
		// short it can only refuse to start. Start one cold.
		p.mu.Lock()
		s.state = discarded
		p.mu.Unlock()
		p.r.log.Error(fmt.Errorf("handing over to the warm replacement (pid %d): %w", s.c.pid, err), "starting the daemon cold", "name", d.Name())
		return nil
	}
	p.mu.Lock()
	delete(p.delay, d.Name())
	delete(p.retryAt, d.Name())
	p.mu.Unlock()
	return s.c
}

// revalidate drops every standby that res no longer wants as it is: after a
// spec change the generation, the env (its fromEnv variables) or the state
// may differ. The caller has applied res's secret variables (setDesired).
func (p *standbys) revalidate(res *spec.Result) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.epoch++
	var names []string
	for name := range p.byName {
		names = append(names, name)
	}
	p.mu.Unlock()
	for _, name := range names {
		d := res.Lookup(name)
		if d == nil || d.Config.State != spec.StateRunning {
			p.discard(name, "no longer desired Running")
			continue
		}
		want, err := keyOf(p.r.launchOf(d, ownership.PathsFor(p.r.opts.AgentDir, name), ""))
		p.mu.Lock()
		if s := p.byName[name]; s != nil && (err != nil || !s.key.equal(want)) {
			p.dropLocked(s, "the spec changed what a spawn would start")
		}
		p.mu.Unlock()
	}
}

// discard drops the name's standby, if any.
func (p *standbys) discard(name, why string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.byName[name]; s != nil {
		p.dropLocked(s, why)
	}
}

// dropLocked discards s by closing its stdin: it reads EOF and exits 0,
// having written nothing. It is never signalled.
func (p *standbys) dropLocked(s *standby, why string) {
	if p.byName[s.name] == s {
		delete(p.byName, s.name)
	}
	if s.state != standing {
		return
	}
	s.state = discarded
	s.closeStdin()
	p.r.log.V(1).Info("warm replacement discarded", "name", s.name, "pid", s.c.pid, "why", why)
}

// close discards every standby and waits, up to wait, for them to exit, so
// that a stopped loop leaves none behind (nor a zombie of one).
func (p *standbys) close(wait time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.closed = true
	var all []*standby
	for _, s := range p.byName {
		all = append(all, s)
	}
	for _, s := range all {
		p.dropLocked(s, "the loop is stopping")
	}
	p.mu.Unlock()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for _, s := range all {
		select {
		case <-s.reaped:
		case <-deadline.C:
			return
		}
	}
}
