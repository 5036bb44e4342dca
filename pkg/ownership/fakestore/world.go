package fakestore

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// World is everything the fake's stores observe: the records of names, the
// processes that run, the clock, the boot, the pass lock and the faults.
// Its methods are safe for concurrent use.
type World struct {
	mu        sync.Mutex
	now       time.Time
	boot      ownership.BootFacts
	names     map[string]*slot
	procs     map[int]*Process
	lastPID   int
	lastInc   uint64
	lastReq   int
	lastOwner int
	passes    chan struct{} // holds a token while a pass lock is held
	// watchers are the Watch subscribers by name, poked (without
	// blocking) by changed on every change to the name's record or
	// control request.
	watchers map[string]map[chan struct{}]bool

	faults faults
}

// slot is what is kept about one name: fsstore's daemon directory.
type slot struct {
	prepared  bool
	record    *ownership.State // nil when there is none, or it is malformed
	malformed bool
	badLock   bool
	control   *Request
}

// AgentDir is what the fake's daemon claims name as their agent dir, in the
// messages that quote a claim.
const AgentDir = "fakestore:"

// errNotARecord is why a corrupted record or lock cannot be read.
var errNotARecord = errors.New("not JSON: unexpected end of JSON input")

// New returns an empty world: nothing owned or recorded, the clock at a
// fixed instant an hour after boot.
func New() *World {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return &World{
		now:      now,
		boot:     ownership.BootFacts{Time: now.Add(-time.Hour), TimeKnown: true, ID: "fakestore-boot-1"},
		names:    map[string]*slot{},
		procs:    map[int]*Process{},
		lastPID:  1000,
		lastInc:  100000,
		passes:   make(chan struct{}, 1),
		watchers: map[string]map[chan struct{}]bool{},
	}
}

// Store returns a store over w, as one more reconciler would open it.
func (w *World) Store() *Store { return &Store{w: w} }

// Advance moves the clock on by d.
func (w *World) Advance(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = w.now.Add(d)
}

func (w *World) slot(name string) *slot {
	sl := w.names[name]
	if sl == nil {
		sl = &slot{}
		w.names[name] = sl
	}
	return sl
}

// SetRecord makes s name's record, as a writer other than its owner would.
func (w *World) SetRecord(name string, s ownership.State) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sl := w.slot(name)
	c := s.Clone()
	sl.record, sl.malformed, sl.prepared = &c, false, true
	w.changed(name)
}

// CorruptRecord makes name's record one no reader accepts.
func (w *World) CorruptRecord(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sl := w.slot(name)
	sl.record, sl.malformed, sl.prepared = nil, true, true
	w.changed(name)
}

// CorruptLock leaves a lock for name that no reader accepts.
func (w *World) CorruptLock(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sl := w.slot(name)
	sl.badLock, sl.prepared = true, true
}

// RemoveRecord removes all that is kept about name (record, lock, control
// request), as an rm -rf of its directory would. A live owner keeps holding
// the name, as a kernel-held name lock does.
func (w *World) RemoveRecord(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.names, name)
	w.changed(name)
}

// Record returns name's record as a store reads it.
func (w *World) Record(name string) ownership.Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.record(name)
}

// Control returns the control request pending for name, if any.
func (w *World) Control(name string) *Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	if sl := w.names[name]; sl != nil && sl.control != nil {
		c := *sl.control
		return &c
	}
	return nil
}

// Fingerprint describes all that is kept about name, to prove an operation
// changed nothing.
func (w *World) Fingerprint(name string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	sl := w.names[name]
	if sl == nil {
		return "none"
	}
	rec := "none"
	switch {
	case sl.malformed:
		rec = "malformed"
	case sl.record != nil:
		rec = string(sl.record.Marshal())
	}
	return fmt.Sprintf("prepared=%t record=%q badLock=%t control=%+v", sl.prepared, rec, sl.badLock, sl.control)
}

func (w *World) record(name string) ownership.Record {
	sl := w.names[name]
	switch {
	case sl == nil || (!sl.malformed && sl.record == nil):
		return ownership.Record{}
	case sl.malformed:
		return ownership.Record{Present: true, Malformed: &ownership.MalformedError{Path: name + "/" + ownership.StateFile, Err: errNotARecord}}
	}
	s := sl.record.Clone()
	return ownership.Record{Present: true, State: &s, Raw: s.Marshal()}
}

// writeControl replaces name's control request with one to decided, and
// hands it to the process it is addressed to, as that daemon reads it.
func (w *World) writeControl(name, action string, decided ownership.State) Request {
	w.mu.Lock()
	w.lastReq++
	req := Request{
		ID: fmt.Sprintf("fakestore-request-%d", w.lastReq), Action: action,
		OwnerID: decided.OwnerID, PID: decided.PID, Incarnation: decided.Incarnation, CreatedAt: w.now.UnixMilli(),
	}
	w.slot(name).control = &req
	w.changed(name)
	if p := w.procs[req.PID]; p != nil {
		p.controlled(name, req)
	}
	w.mu.Unlock()
	return req
}

// clearControl removes name's control request only if it is requestID's.
func (w *World) clearControl(name, requestID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if sl := w.names[name]; sl != nil && sl.control != nil && sl.control.ID == requestID {
		sl.control = nil
		w.changed(name)
	}
}

// holderOf returns the live process holding name, if any.
func (w *World) holderOf(name string) *Process {
	var pids []int
	for pid, p := range w.procs {
		if !p.exited && p.holds == name {
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		return nil
	}
	sort.Ints(pids)
	return w.procs[pids[0]]
}

// changed pokes name's watchers; the caller holds w.mu.
func (w *World) changed(name string) {
	for ch := range w.watchers[name] {
		select {
		case ch <- struct{}{}:
		default: // a poke is pending already
		}
	}
}

// watch subscribes to name's changes.
func (w *World) watch(name string) (<-chan struct{}, func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan struct{}, 1)
	if w.watchers[name] == nil {
		w.watchers[name] = map[chan struct{}]bool{}
	}
	w.watchers[name][ch] = true
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.watchers[name], ch)
	}
}
