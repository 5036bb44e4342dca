package relay

import (
	"context"
	"slices"
	"strconv"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// EditGap is the least time between two edit requests of one message at
// the service (DESIGN 5, "Edits"): an agent updating a progress line
// twenty times a second costs one request a second, the latest content
// winning. Discord, besides, keeps an undisclosed, smaller allowance for
// edits of messages older than an hour, answered when spent with a 429
// of JSON code 30046 ("Maximum number of edits to messages older than 1
// hour reached"); its retry_after is honoured as any rate limit's, the
// edit kept, and this gap keeps a long-running session's edits of its
// old parts as few as the coalescing makes them.
const EditGap = time.Second

// edits is what coalescing needs, guarded by Relay.mu.
type edits struct {
	// last is when each remote message's latest edit was answered;
	// entries older than EditGap are dropped as others are added.
	last map[string]time.Time
	// replacing maps a queued message's id to the id it replaces, for
	// the queued messages that would edit (not a close, not left out by
	// the verbosity).
	replacing map[string]string
}

func newEdits() edits {
	return edits{last: map[string]time.Time{}, replacing: map[string]string{}}
}

// queuedEdit notes a message admitted to its session's queue.
func (r *Relay) queuedEdit(m bus.Message) {
	if m.Replaces == "" || m.Event == bus.EventClose || Render(m, r.opts.Render).Skip {
		return
	}
	r.mu.Lock()
	r.edits.replacing[m.ID] = m.Replaces
	r.mu.Unlock()
}

// editTurn waits until remote's last edit is EditGap old; false once
// the relay stops.
func (r *Relay) editTurn(ctx context.Context, remote string) bool {
	r.mu.Lock()
	at, ok := r.edits.last[remote]
	r.mu.Unlock()
	if !ok {
		return true
	}
	if wait := EditGap - time.Since(at); wait > 0 {
		return sleep(ctx, wait)
	}
	return true
}

// edited notes remote's edit answered now.
func (r *Relay) edited(remote string) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, at := range r.edits.last {
		if now.Sub(at) >= EditGap {
			delete(r.edits.last, id)
		}
	}
	r.edits.last[remote] = now
}

// supersededLocked reports whether a message queued after m in its
// session edits again what m would: it replaces m, or what m replaces.
func (r *Relay) supersededLocked(m bus.Message) bool {
	q := r.queues[m.Session]
	if q == nil {
		return false
	}
	i := slices.Index(q.ids, m.ID)
	if i < 0 {
		return false
	}
	for _, later := range q.ids[i+1:] {
		if rep, ok := r.edits.replacing[later]; ok && (rep == m.ID || rep == m.Replaces) {
			return true
		}
	}
	return false
}

// coalesced handles a message whose every part is an edit (parts, of the
// remote messages replaced, in the session's thread): it waits for their
// edit turn, and then, if a later queued message edits them again,
// journals m's edits done without a request and reports true: that
// later message's content is the one to show, within the same gap.
//
// The done records keep the journal's word: m's parts are the replaced
// messages, so a message replacing m edits them (not posts anew), and a
// restart finds m done. What m would have shown is never shown; the later
// message shows what replaces it, as it would a moment later anyway.
func (r *Relay) coalesced(ctx context.Context, m bus.Message, thread string, parts, replaced []string) (bool, error) {
	if m.Replaces == "" || len(parts) == 0 || len(parts) > len(replaced) || slices.Contains(replaced[:len(parts)], "") {
		return false, nil
	}
	for _, remote := range replaced[:len(parts)] {
		if !r.editTurn(ctx, remote) {
			return false, errStopped
		}
	}
	r.mu.Lock()
	superseded := r.supersededLocked(m)
	r.mu.Unlock()
	if !superseded {
		return false, nil
	}
	for k := range parts {
		rec := bus.Record{ID: m.ID, Part: editPart(k), Session: m.Session, Thread: thread, Remote: replaced[k]}
		r.mu.Lock()
		_, done := r.st.done[rec.Key()]
		r.mu.Unlock()
		if done {
			continue
		}
		if err := r.record(ctx, rec, bus.OpDone, replaced[k]); err != nil {
			return false, err
		}
	}
	r.opts.Log.V(1).Info("edit coalesced: a later message edits the same parts", "id", m.ID, "session", m.Session)
	return true, nil
}

// editPart is the journal's part of the edit of a message's k-th part.
func editPart(k int) string { return "edit:" + strconv.Itoa(k) }
