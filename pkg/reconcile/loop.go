package reconcile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// LoopOptions configure the continuous loop.
type LoopOptions struct {
	SpecPath    string
	Resync      time.Duration
	LockTimeout time.Duration
	// OnStatus is called after every status.json write (service managers).
	OnStatus func(PassResult)
	// OnReloaded is called once a Reload has re-read the spec.
	OnReloaded func()
	// Watchdog, when positive, calls OnWatchdog at that interval from the
	// loop's own goroutine, so a stuck loop stops calling it.
	Watchdog   time.Duration
	OnWatchdog func()
	// SpecRemoveGrace is how long a file gone from a spec dir keeps its
	// objects desired (spec.DefaultRemoveGrace when zero).
	SpecRemoveGrace time.Duration
	// WarmReplacements keeps, for each name with a healthy owner, its next
	// daemon started and waiting for its config (see standby.go), so that a
	// restart skips the binary's start. It costs one idle process per name.
	WarmReplacements bool
}

// Loop is the level-triggered reconcile loop. It wakes only on triggers: spec
// source events, daemon dir events (state.json, control.json), the exit of an
// observed owner, per-name requeue timers, the resync period and Reload.
type Loop struct {
	r      *Reconciler
	opts   LoopOptions
	loader *spec.Loader
	lock   *sharedLock
	q      *queue
	ctx    context.Context
	// serving is what operators' commands served by this loop need (loopapi.go).
	serving *loopServing

	mu      sync.Mutex
	res     *spec.Result
	watched map[string]func()     // name -> cancel of its dir subscription
	exits   map[string]*exitWatch // name -> watch on its live owner
	reload  chan struct{}
	dirty   chan struct{}
	// wakes counts what woke the loop, by trigger, for status.json: an idle
	// loop should show only heartbeat-driven dir events and resyncs.
	wakes      map[string]int64
	reconciles int64
	// started is set once the first pass is done and the queue owns names.
	started atomic.Bool
	// written is what status.json last said, less its timestamps and counters:
	// a heartbeat that changes nothing does not rewrite (and fsync) the file.
	written []byte
}

// standbyCloseWait bounds how long a stopping loop waits for its warm
// replacements to read EOF and exit.
const standbyCloseWait = 5 * time.Second

// specSettle is how long spec events must be quiet before the spec is read.
const specSettle = 50 * time.Millisecond

// Triggers of the loop, as counted in status.json.
const (
	TriggerSpec      = "spec"
	TriggerDaemonDir = "daemonDir"
	TriggerOwnerExit = "ownerExit"
	TriggerChildExit = "childExit"
	TriggerRequeue   = "requeue"
	TriggerResync    = "resync"
	TriggerReload    = "reload"
)

func (l *Loop) wake(trigger string) {
	l.mu.Lock()
	l.wakes[trigger]++
	l.mu.Unlock()
	l.r.opts.Hooks.woke(trigger)
}

type exitWatch struct {
	ownerID string
	cancel  context.CancelFunc
}

// NewLoop prepares a loop; Run starts it.
func NewLoop(r *Reconciler, opts LoopOptions) *Loop {
	if opts.Resync <= 0 {
		opts.Resync = 30 * time.Second
	}
	l := &Loop{r: r, opts: opts, loader: spec.NewLoader(opts.SpecPath),
		lock:    &sharedLock{store: r.store, timeout: opts.LockTimeout},
		watched: map[string]func(){}, exits: map[string]*exitWatch{},
		reload: make(chan struct{}, 1), dirty: make(chan struct{}, 1), wakes: map[string]int64{},
		serving: newLoopServing()}
	if opts.SpecRemoveGrace > 0 {
		l.loader.SetRemoveGrace(opts.SpecRemoveGrace)
	}
	UseLastGood(r.opts.AgentDir, l.loader, r.log)
	l.q = newQueue(l.work)
	if opts.WarmReplacements {
		r.warm = newStandbys(r, func(name string) *spec.Daemon { return l.result().Lookup(name) })
	}
	r.opts.ChildExited = func(name string) {
		// During the first pass the name's reconcile is still running; the
		// look that follows the pass (see follow) covers the exit.
		if l.started.Load() {
			l.wake(TriggerChildExit)
			l.q.add(name)
		}
	}
	return l
}

// Reload re-reads the spec and reconciles every name now (SIGHUP).
func (l *Loop) Reload() { poke(l.reload) }

// Run does a first full pass, then follows triggers until ctx is done.
// Daemons keep running when it returns.
func (l *Loop) Run(ctx context.Context) error {
	l.ctx = ctx
	defer l.serving.markDone()
	defer l.stopWatches()
	// Runs after the queue's workers are done (see ctx.Done below), so no
	// spawn is handing one over meanwhile.
	defer l.r.warm.close(standbyCloseWait)
	// Watch before the first read, so a change made while the first pass
	// runs is not lost between the read and the watch.
	specEvents, cancelSpec, err := l.r.watch.Subscribe(specWatchDir(l.opts.SpecPath), specFiles(l.opts.SpecPath))
	if err != nil {
		l.r.log.Error(err, "watching the spec source; changes are picked up on resync and SIGHUP")
	} else {
		defer cancelSpec()
	}
	first, err := l.fullPass(ctx)
	if err != nil {
		return err
	}
	l.notify(first)

	resync := time.NewTicker(l.opts.Resync)
	defer resync.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	// A file gone from a spec dir is removed only by a look after its grace,
	// which no file event may bring.
	graceEnd := time.NewTimer(time.Hour)
	graceEnd.Stop()
	defer graceEnd.Stop()
	l.armGraceEnd(graceEnd)
	var watchdog <-chan time.Time
	if l.opts.Watchdog > 0 && l.opts.OnWatchdog != nil {
		t := time.NewTicker(l.opts.Watchdog)
		defer t.Stop()
		watchdog = t.C
		l.opts.OnWatchdog()
	}
	for {
		select {
		case <-ctx.Done():
			l.q.shutdown()
			l.writeStatus(true)
			return nil
		case <-specEvents:
			// Let a burst of writes settle before reading: an in-place write
			// is several events, and reading between them sees half a file.
			settle.Reset(specSettle)
		case <-settle.C:
			l.wake(TriggerSpec)
			l.refresh(false)
			l.armGraceEnd(graceEnd)
		case <-graceEnd.C:
			l.wake(TriggerSpec)
			l.refresh(false)
			l.armGraceEnd(graceEnd)
		case <-l.reload:
			l.wake(TriggerReload)
			l.refresh(true)
			l.armGraceEnd(graceEnd)
			if l.opts.OnReloaded != nil {
				l.opts.OnReloaded()
			}
		case <-watchdog:
			l.opts.OnWatchdog()
		case <-resync.C:
			l.wake(TriggerResync)
			l.refresh(true)
			l.armGraceEnd(graceEnd)
		case <-l.dirty:
			l.writeStatus(false)
		}
	}
}

// armGraceEnd sets t for the loader's next look, if one is due.
func (l *Loop) armGraceEnd(t *time.Timer) {
	if at := l.loader.NextLook(); !at.IsZero() {
		t.Reset(time.Until(at))
	}
}

// fullPass runs the first pass synchronously under the pass lock, so a
// service manager hears READY only after the machine was looked at once.
func (l *Loop) fullPass(ctx context.Context) (PassResult, error) {
	res := l.loader.Load()
	l.setResult(res)
	if err := l.lock.acquire(ctx); err != nil {
		return PassResult{}, err
	}
	defer l.lock.release()
	out := l.r.Pass(ctx, res)
	l.started.Store(true)
	l.serving.markReady()
	// The names at once: each follow may wait out a request's bound on a
	// cluster cut off just now, and the loop writes no status until this
	// returns.
	var wg sync.WaitGroup
	for name, o := range out.outcomes {
		if o.RequeueAfter > 0 {
			l.requeueAfter(name, o.RequeueAfter)
		}
		wg.Go(func() { l.follow(name, o.Owner) })
	}
	wg.Wait()
	return out, nil
}

// refresh reloads the spec (cheap when nothing changed) and queues the names
// that may need work: all of them on a change, a resync or a reload.
func (l *Loop) refresh(all bool) {
	res := l.loader.Load()
	changed := l.setResult(res)
	if !changed && !all {
		return
	}
	if changed {
		l.r.log.Info("spec changed", "valid", res.Valid(), "daemons", len(res.Daemons))
	}
	names := l.r.Names(res)
	l.forgetOthers(names)
	for _, n := range names {
		l.q.add(n)
	}
}

// forgetOthers drops the watches of names that no longer exist anywhere (not
// desired, not in the inventory, no dir), so a loop that runs for weeks does
// not accumulate them.
func (l *Loop) forgetOthers(names []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for name, cancel := range l.watched {
		if !slices.Contains(names, name) {
			cancel()
			delete(l.watched, name)
			if w := l.exits[name]; w != nil {
				w.cancel()
				delete(l.exits, name)
			}
		}
	}
}

func (l *Loop) setResult(res *spec.Result) bool {
	l.mu.Lock()
	changed := l.res != res
	wasValid := l.res == nil || l.res.Valid()
	l.res = res
	l.r.setDesired(res)
	l.mu.Unlock()
	if changed {
		// At error level, from the first load on: journalctl -p err must
		// find why a bot is not what the spec file says.
		for _, e := range res.Errors {
			l.r.log.Error(errors.New(e.String()), specErrorMessage(res, e))
		}
		l.r.SaveLastGood(res)
		l.r.specEvents(res, wasValid)
		l.r.warm.revalidate(res)
	}
	return changed
}

func (l *Loop) result() *spec.Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.res
}

// work reconciles one name under the shared pass lock.
func (l *Loop) work(name string) {
	if l.ctx.Err() != nil {
		return
	}
	// An operator's command on this name, served by this loop, runs alone.
	unlock, err := l.serving.names.lock(l.ctx, name)
	if err != nil {
		return
	}
	defer unlock()
	if err := l.lock.acquire(l.ctx); err != nil {
		l.r.log.Error(err, "pass lock not had; retrying", "name", name)
		l.requeueAfter(name, time.Second)
		return
	}
	res := l.result()
	out := l.r.Reconcile(l.ctx, name, res.Lookup(name), res)
	l.lock.release()
	if l.ctx.Err() == nil {
		// Here, in the name's own worker, and nowhere else: a standby is
		// started or handed over by one goroutine at a time. (The first
		// pass is followed by a look at every name, see follow.)
		l.r.warm.keep(name, out)
	}
	l.mu.Lock()
	l.reconciles++
	l.mu.Unlock()
	if out.RequeueAfter > 0 {
		l.requeueAfter(name, out.RequeueAfter)
	}
	l.follow(name, out.Owner)
	poke(l.dirty)
}

// follow keeps a watch on the name's dir and on its live owner's exit.
// It runs in the name's worker (or the first pass), one at a time per
// name. The store is asked without l.mu held: a request to a cluster that
// does not answer takes its whole bound, and l.mu is what the loop's
// status reads and every worker's start take.
func (l *Loop) follow(name string, owner *ownership.State) {
	l.mu.Lock()
	_, watched := l.watched[name]
	cur := l.exits[name]
	l.mu.Unlock()
	// A watched name's watch is kept whole by the store (Observe watches
	// a re-created dir again), so only a new name is subscribed.
	// One that cannot be watched is looked at on each resync, and asked
	// again after each look.
	if !watched {
		if events, cancel, err := l.r.store.Watch(name); err == nil {
			l.mu.Lock()
			l.watched[name] = cancel
			l.mu.Unlock()
			// What changed between the last look and the watch is seen by
			// one more look now.
			l.q.add(name)
			go func() {
				for range events {
					l.wake(TriggerDaemonDir)
					l.q.add(name)
				}
			}()
		}
	}
	if owner == nil || (cur != nil && cur.ownerID == owner.OwnerID) {
		return
	}
	proc, err := l.r.store.Reference(*owner)
	if err != nil {
		// Gone since it was observed: look again soon, not at once (the
		// look may be the one running now).
		l.requeueAfter(name, time.Second)
		return
	}
	ctx, cancel := context.WithCancel(l.ctx)
	l.mu.Lock()
	if prev := l.exits[name]; prev != nil {
		prev.cancel()
	}
	l.exits[name] = &exitWatch{ownerID: owner.OwnerID, cancel: cancel}
	l.mu.Unlock()
	go func() {
		defer proc.Close()
		if proc.Wait(ctx) == nil {
			l.r.log.Info("owner exited", "name", name, "pid", owner.PID)
			l.mu.Lock()
			if w := l.exits[name]; w != nil && w.ownerID == owner.OwnerID {
				delete(l.exits, name)
			}
			l.mu.Unlock()
			l.wake(TriggerOwnerExit)
			l.q.add(name)
		}
	}()
}

func (l *Loop) requeueAfter(name string, d time.Duration) {
	l.q.addAfter(name, d, func() { l.wake(TriggerRequeue) })
}

func (l *Loop) stopWatches() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.exits {
		w.cancel()
	}
	for _, cancel := range l.watched {
		cancel()
	}
}

// writeStatus writes status.json if what it says changed, or when forced
// (at exit, so the wake counters are on disk).
func (l *Loop) writeStatus(force bool) {
	res := l.result()
	status := l.r.snapshot(res, l.r.Names(res))
	summary := summarize(status)
	key, _ := json.Marshal(struct {
		V bool
		E []string
		D []DaemonStatus
		P []Problem
	}{status.SpecValid, status.SpecErrors, status.Daemons, status.Problems})
	if !force && bytes.Equal(key, l.written) {
		return
	}
	l.mu.Lock()
	status.Wakes = maps.Clone(l.wakes)
	status.Reconciles = l.reconciles
	l.mu.Unlock()
	if err := writeStatus(l.r.opts.AgentDir, status); err != nil {
		l.r.log.Error(err, "writing status.json")
		return
	}
	l.written = key
	l.notify(summary)
}

func (l *Loop) notify(p PassResult) {
	if l.opts.OnStatus != nil {
		l.opts.OnStatus(p)
	}
}

// specWatchDir is the directory whose events can change the spec: the source
// itself when it is a directory, else the file's parent (editors replace
// files by rename, which a watch on the file itself would lose).
func specWatchDir(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return path
	}
	return filepath.Dir(path)
}

// specFiles accepts the files whose changes can change the spec: the file
// itself (a rename onto it is an event for its name), or any YAML file of a
// directory source.
func specFiles(path string) func(string) bool {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return func(base string) bool { return strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml") }
	}
	name := filepath.Base(path)
	return func(base string) bool { return base == name }
}

// sharedLock holds the cross-process flock while any worker of this process
// needs it: flock conflicts between descriptors of one process too, so the
// workers share one.
type sharedLock struct {
	store   ownership.Store
	timeout time.Duration

	mu     sync.Mutex
	users  int
	unlock func()
}

func (s *sharedLock) acquire(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users > 0 {
		s.users++
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	release, err := s.store.LockPasses(lctx)
	if err != nil {
		return err
	}
	s.unlock, s.users = release, 1
	return nil
}

func (s *sharedLock) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users--; s.users == 0 && s.unlock != nil {
		s.unlock()
		s.unlock = nil
	}
}

// ErrLock reports whether err is a lock timeout.
func ErrLock(err error) bool { return errors.Is(err, ownership.ErrPassesLocked) }

// poke wakes ch's reader without waiting: one pending wake is enough.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
