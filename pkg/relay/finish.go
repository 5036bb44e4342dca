package relay

import (
	"context"
	"errors"
	"os"
	"sync"
)

// finishing hands delivered messages from the sessions' workers to the
// finisher, which moves them out of the outbox in batches: a worker goes
// on to its session's next message as soon as every part of this one is
// done, and a burst costs one sync of sent/ and of the outbox per batch,
// not two per message. Until its file has moved, a message stays known
// (r.known), so no listing queues it again; one the relay stops before
// moving has every part done in the journal, and the next start moves it
// without a request.
type finishing struct {
	mu    sync.Mutex
	ids   []string            // delivered, in the order they were handed over
	moves map[string][]string // id -> its files/ entries, for those to move to sent/
	wake  chan struct{}
}

// toSent notes that message id goes to sent/ once handed over.
func (f *finishing) toSent(id string, entries []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.moves == nil {
		f.moves = map[string][]string{}
	}
	f.moves[id] = entries
}

// hand gives the finisher message id, whatever became of it (to sent/,
// failed, gone).
func (f *finishing) hand(id string) {
	f.mu.Lock()
	f.ids = append(f.ids, id)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// take empties the hand-over and returns it.
func (f *finishing) take() (ids []string, moves map[string][]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids, moves = f.ids, f.moves
	f.ids, f.moves = nil, nil
	return ids, moves
}

// finisher runs until ctx ends; what is handed over after that is left
// for the next start (see Start).
func (r *Relay) finisher(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.fin.wake:
			r.finish(ctx)
		}
	}
}

// finish moves every message handed over so far out of the outbox and
// forgets it. A refused bus is waited for (openBus); a relay that stops
// first leaves them in the outbox for the next start.
func (r *Relay) finish(ctx context.Context) {
	ids, moves := r.fin.take()
	if len(ids) == 0 {
		return
	}
	// Their done records first: no file leaves the outbox before every
	// part of it is durably done (request.go, record).
	if err := r.flushDone(ctx); err != nil {
		return // stopping: left in the outbox, looked up at the next start
	}
	if len(moves) > 0 {
		box, err := r.openBus(ctx)
		if err != nil {
			// Stopping: left in the outbox, every part done.
			return
		}
		var names []string
		for _, id := range ids {
			entries, ok := moves[id]
			if !ok {
				continue
			}
			// The files first: a message still in the outbox finds its
			// posted files' entries moved (prepareFiles skips done
			// parts), while a message in sent/ never leaves its entries
			// behind in files/. One that cannot be moved is left for gc
			// (named by no message then).
			if err := box.MoveFiles(id, entries); err != nil {
				r.opts.Log.Error(err, "moving a message's files to sent/; left in files/ for gc", "id", id)
			}
			names = append(names, id+".json")
		}
		for i, err := range box.MoveAllToSent(names) {
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				r.failFile(box, names[i], err.Error())
			}
		}
		box.Close()
	}
	r.mu.Lock()
	for _, id := range ids {
		if _, ok := moves[id]; ok {
			r.st.forget(id)
		}
		delete(r.known, id+".json")
	}
	r.placeTurnMayBeFreeLocked()
	r.mu.Unlock()
	for _, id := range ids {
		if _, ok := moves[id]; ok {
			r.opts.Finished(id)
		}
		// A file of the same name may have come back while this one was
		// in flight, and been skipped as known: look at that name again.
		r.touched.add(id + ".json")
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
	r.changed()
}
