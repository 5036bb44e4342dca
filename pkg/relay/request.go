package relay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// op is one kind of request: how it is sent, and whether a lost answer
// is looked up (a post makes something new, so a repeat could double it)
// or simply repeated (a thread start, an edit, an archive are idempotent).
type op struct {
	name   string // the step prefix: root, thread, part, edit, archive
	lookup bool
}

var (
	opRoot    = op{"root", true}
	opThread  = op{"thread", false}
	opPost    = op{"part", true}
	opEdit    = op{"edit", false}
	opArchive = op{"archive", false}
	opFile    = op{"file", true} // a file part: one file, one message
)

// do makes sure the request rec describes is done, exactly once, and
// returns what the service made (its id). It is the journal's invariant
// in one place: an attempt record is durable before the request goes
// out; an attempt found without its done record is looked up (for ops
// that create) before anything is sent again, and "not found" counts
// only once the attempt can no longer land (Options.Settle after it was
// made: a request whose answer was lost may still be stored after the
// lookup); the done record follows the service's confirmation.
//
// still reports whether the message is still to be posted (its file in
// the outbox); a message taken away by hand while its request waits to
// be retried is dropped (errGone), never retried forever.
func (r *Relay) do(ctx context.Context, o op, rec bus.Record, still func() bool) (string, error) {
	return r.doDecorated(ctx, o, rec, decoration{}, still)
}

// doDecorated is do for a part that carries deco besides its text (an
// ask's last part: its buttons).
func (r *Relay) doDecorated(ctx context.Context, o op, rec bus.Record, deco decoration, still func() bool) (string, error) {
	if (o == opRoot || o == opThread) && !r.opts.Poster.PlacesApart() {
		release, err := r.takePlaceTurn(ctx, rec)
		if err != nil {
			return "", errStopped
		}
		defer release()
	}
	remote, err := r.doOnce(ctx, o, rec, deco, still)
	if err == nil {
		r.clearBlock(rec.Session)
	}
	return remote, err
}

func (r *Relay) doOnce(ctx context.Context, o op, rec bus.Record, deco decoration, still func() bool) (string, error) {
	key := rec.Key()
	b := r.newBackoff()
	// unlanded: no attempt of key can still land at the service. True
	// when none was pending as this request began, and kept while every
	// attempt since was answered with a refusal that accepted nothing (a
	// 429, a block): such an attempt needs no lookup and no settling, or
	// each 429 would cost a whole Settle.
	unlanded := false
	for first := true; ; first = false {
		r.mu.Lock()
		remote, done := r.st.done[key]
		a, pending := r.st.pending(key)
		r.mu.Unlock()
		if done {
			return remote, nil
		}
		if first {
			// An attempt made in a place since deleted and made again
			// cannot be in this one: there is nothing to look up.
			unlanded = !pending || a.rec.Thread != rec.Thread
		}
		if pending && r.looksUp(o) && !unlanded {
			remote, found, err := r.lookup(ctx, o, a, deco)
			switch {
			case KindOf(err) == Gone:
				return "", &placeGone{err: err}
			case err != nil:
				if !r.retryWait(ctx, rec.Session, err, b) {
					return "", errStopped
				}
				if !still() {
					return "", errGone
				}
				continue
			case found:
				return remote, r.record(ctx, rec, bus.OpDone, remote)
			case time.Since(a.firstAttempt()) < r.opts.Settle:
				// Not there yet, but the request may still land: look
				// again once it cannot.
				wait := r.opts.Settle - time.Since(a.firstAttempt())
				r.opts.Log.V(1).Info("attempt not found yet; looking again once it can no longer land", "key", key, "in", wait.String())
				if !sleep(ctx, wait) {
					return "", errStopped
				}
				continue
			}
			// Sure it was never accepted: attempt it afresh.
			unlanded = true
		}
		if !first && deco.verify != nil {
			// A re-post: never other content under the same key.
			if err := deco.verify(); err != nil {
				return "", err
			}
		}
		remote, err := r.attempt(ctx, o, rec, deco)
		if err == nil {
			return remote, nil
		}
		if ctx.Err() != nil || errors.Is(err, errStopped) {
			return "", errStopped
		}
		if errors.Is(err, errFatal) {
			return "", err
		}
		if KindOf(err) == Gone && o != opRoot {
			if o == opArchive {
				// The thread to close was deleted: nothing is left open.
				return rec.Thread, r.record(ctx, rec, bus.OpDone, rec.Thread)
			}
			return "", &placeGone{err: err}
		}
		switch KindOf(err) {
		case Refused:
			return "", &errRefused{err: err}
		case Uncertain:
			unlanded = false
			r.opts.Log.Info("answer lost; looking it up before any re-post", "key", key, "error", err.Error())
			if !b.wait(ctx) {
				return "", errStopped
			}
		default: // RateLimited, Blocked: nothing was accepted
			if !r.retryWait(ctx, rec.Session, err, b) {
				return "", errStopped
			}
			if !still() {
				return "", errGone
			}
		}
	}
}

// errGone: the message was taken out of the outbox while it waited.
var errGone = errors.New("message taken out of the outbox")

// placeGone carries up to post a request refused because the session's
// place (its thread, or the root a thread was to start from) was deleted:
// the place is made again and the message goes on there. A root, posted
// in the channel itself, has no place to lose: an adapter's Gone for one
// is waited out as a block.
type placeGone struct{ err error }

func (e *placeGone) Error() string { return e.err.Error() }
func (e *placeGone) Unwrap() error { return e.err }

// attempt makes one request: the attempt record, the request, the done
// record, with the labelled steps in between.
func (r *Relay) attempt(ctx context.Context, o op, rec bus.Record, deco decoration) (string, error) {
	key := rec.Key()
	if err := r.waitGlobal(ctx); err != nil {
		return "", err
	}
	r.opts.Step(o.name+":before-attempt", key)
	if err := r.record(ctx, rec, bus.OpAttempt, ""); err != nil {
		return "", err
	}
	r.opts.Step(o.name+":after-attempt", key)
	// One proof of ownership per request, the last thing before it: an
	// attempt record written by an owner that lost its name since is
	// harmless (the next owner's lookup finds nothing and posts it, and
	// an attempt after a done record is ignored), while a proof before
	// the record as well would cost every request a second one (an etcd
	// round trip in a fleet).
	if err := r.fence(); err != nil {
		return "", err
	}
	start := time.Now()
	remote, err := r.send(ctx, o, rec, deco)
	if err != nil {
		return "", err
	}
	r.opts.Step(o.name+":accepted", key)
	r.posted(time.Since(start))
	if err := r.record(ctx, rec, bus.OpDone, remote); err != nil {
		return "", err
	}
	r.opts.Step(o.name+":after-done", key)
	return remote, nil
}

// send is the request itself.
func (r *Relay) send(ctx context.Context, o op, rec bus.Record, deco decoration) (string, error) {
	p := r.opts.Poster
	switch o {
	case opThread:
		return p.StartThread(ctx, rec.Remote, rec.Text)
	case opEdit:
		return rec.Remote, p.Edit(ctx, EditRequest{Thread: rec.Thread, RemoteID: rec.Remote, Text: rec.Text})
	case opArchive:
		return rec.Thread, p.Archive(ctx, rec.Thread)
	}
	part := Part{Key: rec.Key(), Session: rec.Session, Thread: rec.Thread, Text: rec.Text, FirstAttempt: time.Now(),
		Choices: deco.choices, Ping: deco.ping}
	if o == opFile {
		part.Upload = deco.upload
		part.Staged = r.staged(rec.Key())
		part.Stage = func(ctx context.Context, token string) error {
			err := r.record(ctx, bus.Record{ID: rec.ID, Part: rec.Part, Session: rec.Session, Thread: rec.Thread}, bus.OpStage, token)
			if err == nil {
				r.opts.Step(o.name+":staged", rec.Key())
			}
			return err
		}
	}
	return p.Post(ctx, part)
}

// staged is the token a file part's Stage recorded ("" for none).
func (r *Relay) staged(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st.staged[key]
}

// partState is what the journal says of part key: its attempt when one
// is pending, and whether it is done.
func (r *Relay) partState(key string) (rec bus.Record, pending, done bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, done = r.st.done[key]; done {
		return bus.Record{}, false, true
	}
	a, pending := r.st.pending(key)
	return a.rec, pending, false
}

// looksUp: whether a lost answer of o is looked up before o is sent
// again; a thread start too when the poster's is not safe to repeat.
func (r *Relay) looksUp(o op) bool {
	return o.lookup || o == opThread && r.opts.Poster.Threads() != nil
}

// lookup asks the service whether an attempted part was accepted.
func (r *Relay) lookup(ctx context.Context, o op, a attempt, deco decoration) (string, bool, error) {
	if err := r.waitGlobal(ctx); err != nil {
		return "", false, err
	}
	if err := r.fence(); err != nil {
		return "", false, err
	}
	rec := a.rec
	p := Part{Key: rec.Key(), Session: rec.Session, Thread: rec.Thread, Text: rec.Text, FirstAttempt: a.firstAttempt(), Confirmed: r.confirmed,
		After: a.after, Choices: deco.choices, Ping: deco.ping}
	if o == opFile {
		// The upload as the attempt recorded it: prepareFiles proved the
		// content still has the attempt's sum.
		p.Upload, p.Staged = deco.upload, r.staged(rec.Key())
	}
	if tl := r.opts.Poster.Threads(); tl != nil && o == opThread {
		p.Thread = rec.Remote // the root the thread was started from
		return tl.LookupThread(ctx, p)
	}
	return r.opts.Poster.Lookup(ctx, p, a.after)
}

// confirmed reports whether remote is the service id of a part known
// done (Part.Confirmed).
func (r *Relay) confirmed(remote string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range r.st.done {
		if id == remote {
			return true
		}
	}
	return false
}

// record appends one journal record and folds it into the state. An
// attempt records where its part would lie (After: the last part done
// in its place, or the poster's Floors above it) and what message it is
// for (Sum, set by the caller).
//
// A done record is folded in at once but written with the next record
// that must be durable (the next attempt, of any session) or by the
// finisher before the message leaves the outbox, whichever comes first:
// one fsync then makes both durable, and a burst costs one sync per
// message, not two. The invariant, kept by the journal's order: every
// done record is durable before any later request goes out, and before
// its message's file leaves the outbox. A crash before then leaves the
// part attempted and not done, and it is looked up, never posted again
// blindly.
func (r *Relay) record(ctx context.Context, rec bus.Record, opName string, remote string) error {
	rec.Op, rec.At = opName, time.Now().UnixMilli()
	if opName == bus.OpDone {
		if _, _, place := bus.ParsePlacePart(rec.Part); !place {
			// A place's done keeps its text (root line, thread name), so
			// that a compacted journal still names a new place as before.
			rec.Text = ""
		}
		rec.Parts, rec.After, rec.Sum = 0, "", ""
		rec.File, rec.Name, rec.ContentType, rec.Size, rec.FileSum = "", "", "", 0, ""
		rec.Remote = remote
		if err := bus.ValidateRecord(rec); err != nil {
			// Never queued: it would fail every write that takes it.
			return fmt.Errorf("relay journal: %w", err)
		}
		r.mu.Lock()
		r.st.apply(rec)
		r.unwritten = append(r.unwritten, rec)
		r.mu.Unlock()
		return nil
	}
	if opName == bus.OpStage {
		rec.Remote = remote
	} else {
		r.mu.Lock()
		rec.After = r.st.lastDone[rec.Thread]
		r.mu.Unlock()
		if f := r.opts.Poster.Floors(); f != nil {
			rec.After = f.Floor(rec.After) // known before the request: journaled first
		}
	}
	if err := r.write(ctx, rec); err != nil {
		return err
	}
	r.mu.Lock()
	r.st.apply(rec)
	r.mu.Unlock()
	return nil
}

// flushDone returns once every done record folded in before it was
// called is durable (see record): those not yet written it writes, and
// for those another write took it waits. A write it waited for that
// failed put its records back, and they are written again.
func (r *Relay) flushDone(ctx context.Context) error {
	r.mu.Lock()
	waits := slices.Clone(r.writing)
	r.mu.Unlock()
	if err := r.write(ctx); err != nil {
		return err
	}
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return errStopped
		}
	}
	if len(waits) == 0 {
		return nil
	}
	return r.write(ctx)
}

// write appends the done records not yet written, then recs, in one
// append. A write that fails (a full disk, an I/O error) pauses the
// relay, shown as RelayBlocked: the journal is reopened (cutting a torn
// last line) and the write tried again with back-off until it is
// written or the relay stops; the done records are then kept for the
// next write.
func (r *Relay) write(ctx context.Context, recs ...bus.Record) error {
	r.mu.Lock()
	done := r.unwritten
	r.unwritten = nil
	if len(done) > 0 {
		// Until it ends, a flush waits for this write (flushDone).
		end := make(chan struct{})
		r.writing = append(r.writing, end)
		defer func() {
			r.mu.Lock()
			r.writing = slices.DeleteFunc(r.writing, func(c chan struct{}) bool { return c == end })
			r.mu.Unlock()
			close(end)
		}()
	}
	r.mu.Unlock()
	all := append(done[:len(done):len(done)], recs...)
	for len(all) > 0 {
		n := min(len(all), maxAppend)
		if err := r.appendAll(ctx, all[:n]); err != nil {
			// Written again by the next write: a done record twice
			// says the same as once.
			r.mu.Lock()
			r.unwritten = append(done, r.unwritten...)
			r.mu.Unlock()
			return err
		}
		all = all[n:]
	}
	return nil
}

// maxAppend bounds the records of one append (a fleet's journal writes
// one in one etcd transaction, which takes at most 100 operations).
const maxAppend = 64

func (r *Relay) appendAll(ctx context.Context, recs []bus.Record) error {
	b := r.newBackoff()
	for {
		j := r.journal()
		err := j.Append(ctx, recs...)
		if err == nil {
			r.clearBlock(journalBlock)
			return nil
		}
		if ctx.Err() != nil {
			return errStopped
		}
		r.opts.Log.Error(err, "writing the relay journal; nothing is posted until it is written", "key", recs[len(recs)-1].Key())
		r.setBlock(journalBlock, &Block{Reason: ReasonRelayBlocked, Message: "the relay journal cannot be written: " + err.Error()})
		if !b.wait(ctx) {
			return errStopped
		}
		r.reopenJournal(ctx, j)
	}
}

// journalBlock keys the block of a journal that cannot be written.
const journalBlock = "\x00journal"

func (r *Relay) journal() Journal {
	r.jmu.Lock()
	defer r.jmu.Unlock()
	return r.j
}

// reopenJournal replaces old, after a failed write, with the journal
// opened afresh; kept when it cannot be opened (the next write fails at
// once and is tried again).
func (r *Relay) reopenJournal(ctx context.Context, old Journal) {
	r.jmu.Lock()
	defer r.jmu.Unlock()
	if r.j != old {
		return // another worker reopened it already
	}
	_ = old.Close()
	j, err := r.opts.Journal.Open(ctx)
	if err != nil {
		r.opts.Log.Error(err, "reopening the relay journal")
		return
	}
	r.j = j
}

// errFatal marks errors that end the relay (ownership lost).
var errFatal = errors.New("relay ends")

// fence proves ownership before a request; lost, the relay ends.
func (r *Relay) fence() error {
	if err := r.opts.Fence(); err != nil {
		return errors.Join(errFatal, err)
	}
	return nil
}
