package relay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// queue is one session's pending messages, by id, and whether a worker
// runs for it. Only names are kept: a message is read when its turn
// comes, so memory grows with the messages in flight, not the backlog.
type queue struct {
	ids     []string // sorted
	running bool
}

// run is the dispatcher: it scans the outbox on every change (and every
// resync) and hands new messages to their sessions' workers. It scans,
// and so counts the backlog, from the start; the channel check runs
// beside it, and the workers wait for it (r.checked) before their first
// request.
func (r *Relay) run(ctx context.Context, changes <-chan struct{}) {
	r.wg.Add(2)
	go func() {
		defer r.wg.Done()
		if r.checkChannel(ctx) {
			close(r.checked)
		}
	}()
	go func() {
		defer r.wg.Done()
		r.finisher(ctx)
	}()
	resync := time.NewTicker(30 * time.Second)
	defer resync.Stop()
	// The first prune waits a minute: a start with a full sent/ posts
	// first and tidies after.
	prune := time.NewTimer(time.Minute)
	defer prune.Stop()
	// again wakes a scan when a young file's grace ends, or to look at a
	// refused bus again.
	again := time.NewTimer(time.Hour)
	defer again.Stop()
	refused := r.newBackoff()
	all, names := true, []string(nil)
	for {
		var next time.Time
		switch {
		case all:
			next = r.scan(ctx, refused)
		case len(names) > 0:
			next = r.scanNames(ctx, refused, names)
		}
		if !next.IsZero() {
			again.Reset(max(time.Until(next), 0))
		}
		all, names = true, nil
		select {
		case <-ctx.Done():
			return
		case <-changes:
			names, all = r.touched.take()
		case <-r.wake:
			names, all = r.touched.take()
		case <-resync.C:
		case <-again.C:
		case <-prune.C:
			r.pruneSent()
			prune.Reset(time.Hour)
		}
	}
}

// checkChannel proves the channel before the first post, retrying with
// back-off while it is unavailable; false when the relay stopped first.
func (r *Relay) checkChannel(ctx context.Context) bool {
	b := r.newBackoff()
	for {
		err := r.opts.Poster.CheckChannel(ctx)
		if ctx.Err() != nil {
			return false
		}
		if err == nil {
			r.settle()
			r.setBlock("", nil)
			return true
		}
		var e *Error
		if !errors.As(err, &e) || e.Kind != Blocked {
			// No answer about the channel (the network, a 5xx): not a
			// verdict on the spec; the daemon stays not ready meanwhile.
			r.opts.Log.Info("channel check got no answer; trying again", "error", err.Error())
		} else {
			block := &Block{Reason: ReasonChannelUnavailable, Message: err.Error()}
			if e.Reason != "" {
				block.Reason = e.Reason
			}
			r.settle()
			r.setBlock("", block)
			r.opts.Log.Error(err, "channel check failed; nothing is posted until it passes", "reason", block.Reason)
		}
		if !b.wait(ctx) {
			return false
		}
	}
}

// scan reads the outbox and queues what is new, and says when to look
// again without a change (zero: not before one). A file that cannot be a
// message goes to failed/ once it is past its grace, so it never holds
// back the others; a bus refused (a directory swapped for a link, given
// to another uid, opened to others) blocks the relay and nothing in it is
// read, moved or removed until it is repaired.
func (r *Relay) scan(ctx context.Context, refused *backoff) time.Time {
	box, err := r.openBusOnce()
	if err != nil {
		return time.Now().Add(refused.step())
	}
	defer box.Close()
	refused.reset()
	// Names touched before the listing are in it; those touched after
	// wake the dispatcher again.
	_, _ = r.touched.take()
	names, err := box.List()
	if err != nil {
		r.opts.Log.Error(err, "listing the outbox; trying again on the next change")
		return time.Time{}
	}
	present := make(map[string]bool, len(names))
	for _, name := range names {
		present[name] = true
		r.consider(ctx, box, name)
	}
	r.mu.Lock()
	// A file removed by hand is no longer pending.
	for name := range r.known {
		if !present[name] && !r.inFlightLocked(name) {
			delete(r.known, name)
		}
	}
	// Every message with a place in doubt is known now, and one taken
	// away holds back no place (placeturn.go).
	r.turn.listed = true
	r.placeTurnMayBeFreeLocked()
	for name := range r.ignored {
		if !present[name] {
			delete(r.ignored, name)
		}
	}
	for name := range r.later {
		if !present[name] {
			delete(r.later, name)
		}
	}
	next := r.nextLaterLocked()
	r.mu.Unlock()
	r.changed()
	return next
}

// scanNames is scan for the names the watcher reported only: each is
// judged as a listing would (its absence forgets it as the listing's
// would), so a change costs what it touched, whatever the backlog.
func (r *Relay) scanNames(ctx context.Context, refused *backoff, names []string) time.Time {
	box, err := r.openBusOnce()
	if err != nil {
		return time.Now().Add(refused.step())
	}
	defer box.Close()
	refused.reset()
	for _, name := range names {
		if strings.HasPrefix(name, ".") {
			continue // List skips these too
		}
		if _, err := box.Stat(name); !errors.Is(err, os.ErrNotExist) {
			// There, or not a name a message can have: judged as the
			// listing would (admit refuses what is not a message).
			r.consider(ctx, box, name)
			continue
		}
		r.mu.Lock()
		if !r.inFlightLocked(name) {
			delete(r.known, name)
			r.placeTurnMayBeFreeLocked() // it holds back no place now
		}
		delete(r.ignored, name)
		delete(r.later, name)
		r.mu.Unlock()
	}
	r.mu.Lock()
	next := r.nextLaterLocked()
	r.mu.Unlock()
	r.changed()
	return next
}

// consider admits one present outbox name unless it is queued already or
// was left in place and has not changed since.
func (r *Relay) consider(ctx context.Context, box *bus.Box, name string) {
	r.mu.Lock()
	_, seen := r.known[name]
	left, ignored := r.ignored[name]
	r.mu.Unlock()
	if ignored && !seen {
		// Judged again once it changed: another uid's file chowned
		// to ours, a FIFO replaced by a file.
		now, err := box.Stat(name)
		seen = err == nil && now.Same(left)
		if !seen {
			r.mu.Lock()
			delete(r.ignored, name)
			r.mu.Unlock()
		}
	}
	if seen || ctx.Err() != nil {
		return
	}
	r.admit(ctx, box, name)
}

// nextLaterLocked is when the first young file's grace ends (zero: none).
func (r *Relay) nextLaterLocked() time.Time {
	var next time.Time
	for _, at := range r.later {
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next
}

// admit judges one new outbox entry and queues it in its session; one
// refused while young is looked at again once its grace ends.
func (r *Relay) admit(ctx context.Context, box *bus.Box, name string) {
	m, e, err := box.Take(name)
	verdict, at := bus.Judge(err, e.ModTime, time.Now())
	r.mu.Lock()
	delete(r.later, name)
	r.mu.Unlock()
	switch verdict {
	case bus.Gone:
		return // taken away by hand between the listing and now
	case bus.Later:
		r.mu.Lock()
		r.later[name] = at
		r.mu.Unlock()
		r.opts.Log.V(1).Info("outbox file not a message yet; looked at again once its grace ends", "file", name, "error", err.Error())
		return
	case bus.Refuse:
		r.failFile(box, name, err.Error())
		return
	}
	id := m.ID
	seen := e.ModTime
	r.queuedEdit(m)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.known[name] = seen
	q := r.queues[m.Session]
	if q == nil {
		q = &queue{}
		r.queues[m.Session] = q
	}
	i := sort.SearchStrings(q.ids, id)
	q.ids = append(q.ids, "")
	copy(q.ids[i+1:], q.ids[i:])
	q.ids[i] = id
	if !q.running {
		q.running = true
		r.wg.Add(1)
		go r.work(ctx, m.Session)
	}
}

// inFlightLocked: a name a worker holds, whose file may be mid-move.
func (r *Relay) inFlightLocked(name string) bool {
	id := strings.TrimSuffix(name, ".json")
	for _, q := range r.queues {
		if _, ok := slices.BinarySearch(q.ids, id); ok { // q.ids is sorted
			return true
		}
	}
	return false
}

// failFile moves an outbox entry to failed/ with the reason, through
// box.
func (r *Relay) failFile(box *bus.Box, name, reason string) {
	r.opts.Log.Error(errors.New(reason), "outbox file refused; moved to failed/", "file", name)
	added, err := box.Fail(name, reason)
	entry, serr := box.Stat(name)
	r.mu.Lock()
	if added {
		r.failed++
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		// Left in place (not a regular file of ours, or failed/ not
		// writable): not looked at again until it changes or the relay
		// restarts.
		r.opts.Log.Error(err, "outbox file left in place", "file", name)
		if serr == nil {
			r.ignored[name] = entry
		}
		r.mu.Unlock()
		return
	}
	delete(r.known, name)
	r.mu.Unlock()
	r.opts.Finished(strings.TrimSuffix(name, ".json"))
}

// pruneSent removes sent/ files past SentKeep.
func (r *Relay) pruneSent() {
	n, err := bus.PruneSent(r.opts.Bus, time.Now().Add(-r.opts.SentKeep))
	if err != nil {
		r.opts.Log.Error(err, "pruning sent/")
		return
	}
	if n > 0 {
		r.opts.Log.V(1).Info("pruned sent/", "files", n)
	}
	// files/ entries no message names, as old: a producer died between
	// copying a file and writing its message.
	n, err = bus.PruneFiles(r.opts.Bus, time.Now().Add(-r.opts.SentKeep))
	if err != nil {
		r.opts.Log.Error(err, "pruning files/")
		return
	}
	if n > 0 {
		r.opts.Log.V(1).Info("pruned files/ entries no message names", "files", n)
	}
}

func journalPath(d bus.Dirs) string { return filepath.Join(d.Dir, "journal") }
