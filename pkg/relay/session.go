package relay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gjc.dev/reconciler/pkg/bus"
)

// work delivers one session's messages in id order, one at a time, until
// its queue is empty. Sessions have their own workers, so a session that
// waits (rate-limited, blocked, looking up) never holds back another.
func (r *Relay) work(ctx context.Context, session string) {
	defer r.wg.Done()
	select {
	case <-r.checked:
	case <-ctx.Done():
		return
	}
	for {
		r.mu.Lock()
		q := r.queues[session]
		if len(q.ids) == 0 {
			delete(r.queues, session)
			r.mu.Unlock()
			return
		}
		id := q.ids[0]
		r.mu.Unlock()
		if err := r.deliver(ctx, session, id); err != nil {
			if !errors.Is(err, errStopped) {
				r.fail(err)
			}
			return
		}
		r.mu.Lock()
		// By value: an id that sorts first may have arrived meanwhile.
		if i := slices.Index(q.ids, id); i >= 0 {
			q.ids = slices.Delete(q.ids, i, i+1)
		}
		delete(r.known, id+".json")
		r.mu.Unlock()
		// A file of the same name may have come back while this one was
		// in flight, and been skipped as known: look again.
		select {
		case r.wake <- struct{}{}:
		default:
		}
		r.changed()
	}
}

// errRefused carries a refusal up to deliver, which fails the message.
type errRefused struct{ err error }

func (e *errRefused) Error() string { return e.err.Error() }

// deliver posts one message, whole, and moves it out of the outbox. It
// returns nil once the message left the outbox (to sent/ or failed/) or
// is gone, errStopped when the relay is stopping, and any other error
// when the relay must end (ownership lost).
func (r *Relay) deliver(ctx context.Context, session, id string) error {
	name := id + ".json"
	m, err := bus.Read(filepath.Join(r.opts.Bus.Outbox, name))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		r.failFile(name, err.Error())
		return nil
	}
	sum := bus.MessageSum(m)
	if reason := r.reused(name, m, sum); reason != "" {
		r.failFile(name, reason)
		return nil
	}
	rd := Render(m, r.opts.Render)
	ss, _ := r.sessionNow(session, "")

	// A closed session first: send refuses any message for one, whatever
	// its level, so a file dropped by hand fails the same way.
	switch {
	case ss.closed && m.Event == bus.EventClose:
		return r.sent(name, id) // closed already
	case ss.closed:
		r.mu.Lock()
		closed := r.st.closedError(session)
		r.mu.Unlock()
		r.failFile(name, closed.Error())
		return nil
	case rd.Skip:
		r.filter(id)
		return r.sent(name, id)
	case m.Event == bus.EventClose && ss.root == "" && ss.gen == 0:
		return r.sent(name, id) // never opened: nothing to close
	case m.Event == bus.EventMessage && len(rd.Parts) == 0:
		r.failFile(name, "nothing to post: the message has no title and no text")
		return nil
	}
	still := func() bool {
		_, err := os.Lstat(filepath.Join(r.opts.Bus.Outbox, name))
		return !errors.Is(err, os.ErrNotExist)
	}
	err = r.post(ctx, m, sum, rd, still)
	var refused *errRefused
	if errors.Is(err, errGone) {
		r.clearBlock(session)
		r.opts.Log.Info("message taken out of the outbox while it waited; dropped", "id", id)
		return nil
	}
	if errors.As(err, &refused) {
		r.failFile(name, "refused by the service: "+refused.Error())
		return nil
	}
	if err != nil {
		return err
	}
	r.opts.Step("message:before-sent", id)
	return r.sent(name, id)
}

// sessionNow is what the journal says of session now, and the parts of
// the message it replaces (replaces, "" for none) that an edit can reach:
// those in the session's current thread (a replaced message posted in a
// thread since deleted is posted again, not edited).
func (r *Relay) sessionNow(session, replaces string) (sessionState, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ss := *r.st.session(session)
	var replaced []string
	if t := r.st.texts[replaces]; replaces != "" && t.session == session && t.thread == ss.thread {
		replaced = t.ids
	}
	return ss, replaced
}

// post makes every request of a message that is not done yet, in the
// session's place (see postIn). A place a moderator deleted is made
// again, and the message goes on there: the root of the next generation
// is posted (its attempt, durable first, is the journal's word that the
// place before is gone), then postIn starts its thread. A place gone
// again within the same message is made again only after a back-off, so
// that a service answering Gone to everything cannot make roots in a loop.
func (r *Relay) post(ctx context.Context, m bus.Message, sum string, rd Rendered, still func() bool) error {
	b := r.newBackoff()
	for remade := false; ; remade = true {
		ss, replaced := r.sessionNow(m.Session, m.Replaces)
		err := r.postIn(ctx, m, sum, rd, ss, replaced, still)
		var gone *placeGone
		if !errors.As(err, &gone) {
			return err
		}
		r.opts.Log.Info("the session's thread was deleted; making it again", "session", m.Session,
			"thread", ss.thread, "id", m.ID, "error", gone.Error())
		if remade && !b.wait(ctx) {
			return errStopped
		}
		if _, err := r.postRoot(ctx, m, sum, rd, ss.gen+1, ss, still); err != nil {
			return err
		}
	}
}

// postRoot posts the root of the session's place of generation gen: the
// message's root line as first made, and for a place made again the
// session's first root line with a line saying it continues a deleted
// thread.
func (r *Relay) postRoot(ctx context.Context, m bus.Message, sum string, rd Rendered, gen int, ss sessionState, still func() bool) (string, error) {
	text := rd.Root
	if gen > 0 {
		text = continuedRoot(ss.rootText, rd.Root)
	}
	return r.do(ctx, opRoot, bus.Record{ID: m.ID, Part: bus.PlacePart(bus.PartRoot, gen), Session: m.Session, Text: text, Sum: sum}, still)
}

// postIn makes every request of a message that is not done yet, in the
// session's place ss: its root and thread first, then the text parts
// (edits of the replaced message's parts where it has them), then, for a
// close, the closing line and the archive. Every attempt carries sum, m's
// MessageSum.
func (r *Relay) postIn(ctx context.Context, m bus.Message, sum string, rd Rendered, ss sessionState, replaced []string, still func() bool) error {
	thread := ss.thread
	if thread == "" {
		root := ss.root
		if root == "" {
			var err error
			if root, err = r.postRoot(ctx, m, sum, rd, ss.gen, ss, still); err != nil {
				return err
			}
		}
		name := rd.ThreadName
		if ss.gen > 0 && ss.name != "" {
			name = ss.name // named as before
		}
		var err error
		thread, err = r.do(ctx, opThread, bus.Record{ID: m.ID, Part: bus.PlacePart(bus.PartThread, ss.gen), Session: m.Session, Text: name, Remote: root, Sum: sum}, still)
		if err != nil {
			return err
		}
		// A reply may have come into the thread before its record was
		// durable, when nothing knew the thread for a session's yet.
		r.opts.NewThread()
	}
	parts := rd.Parts
	if rd.Close {
		parts = append(parts[:len(parts):len(parts)], rd.CloseLine)
	}
	for k, text := range parts {
		rec := bus.Record{ID: m.ID, Part: strconv.Itoa(k), Session: m.Session, Thread: thread, Text: text, Parts: len(parts), Sum: sum}
		op := opPost
		if k < len(replaced) && replaced[k] != "" && !rd.Close {
			rec.Part, rec.Remote, op = "edit:"+strconv.Itoa(k), replaced[k], opEdit
		}
		if _, err := r.do(ctx, op, rec, still); err != nil {
			return err
		}
	}
	if rd.Close {
		if _, err := r.do(ctx, opArchive, bus.Record{ID: m.ID, Part: bus.PartArchive, Session: m.Session, Thread: thread, Sum: sum}, still); err != nil {
			return err
		}
	}
	return nil
}

// reused says why m, the outbox file name, is not the message its id
// already named ("" when it is): the journal's attempts for the id were
// made for other content, or sent/ holds other content under the name.
// Checked before any request, so nothing of the second message is posted.
func (r *Relay) reused(name string, m bus.Message, sum string) string {
	r.mu.Lock()
	prev := r.st.sums[m.ID]
	r.mu.Unlock()
	if prev != "" && prev != sum {
		return fmt.Sprintf("id %s was already used, for other content: this message is not posted", m.ID)
	}
	if sent, err := bus.Read(filepath.Join(r.opts.Bus.Sent, name)); err == nil && sent != m.WithDefaults() {
		return fmt.Sprintf("id %s was already posted with other content (sent/%s): this message is not posted", m.ID, name)
	}
	return ""
}

// sent moves a delivered message to sent/. A sent/ file of that name with
// other content means the id was used twice: the new one goes to failed/.
func (r *Relay) sent(name, id string) error {
	if err := bus.MoveToSent(r.opts.Bus, name); err != nil && !errors.Is(err, os.ErrNotExist) {
		r.failFile(name, err.Error())
	}
	r.mu.Lock()
	r.st.forget(id)
	r.mu.Unlock()
	r.opts.Finished(id)
	return nil
}
