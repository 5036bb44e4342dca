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
	r.mu.Lock()
	ss := *r.st.session(session)
	var replaced []string
	if t := r.st.texts[m.Replaces]; m.Replaces != "" && t.session == session {
		replaced = t.ids
	}
	r.mu.Unlock()

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
	case m.Event == bus.EventClose && ss.root == "":
		return r.sent(name, id) // never opened: nothing to close
	case m.Event == bus.EventMessage && len(rd.Parts) == 0:
		r.failFile(name, "nothing to post: the message has no title and no text")
		return nil
	}
	still := func() bool {
		_, err := os.Lstat(filepath.Join(r.opts.Bus.Outbox, name))
		return !errors.Is(err, os.ErrNotExist)
	}
	err = r.post(ctx, m, sum, rd, ss, replaced, still)
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

// post makes every request of a message that is not done yet: the
// session's root and thread first, then the text parts (edits of the
// replaced message's parts where it has them), then, for a close, the
// closing line and the archive. Every attempt carries sum, m's MessageSum.
func (r *Relay) post(ctx context.Context, m bus.Message, sum string, rd Rendered, ss sessionState, replaced []string, still func() bool) error {
	thread := ss.thread
	if thread == "" {
		root := ss.root
		if root == "" {
			var err error
			root, err = r.do(ctx, opRoot, bus.Record{ID: m.ID, Part: bus.PartRoot, Session: m.Session, Text: rd.Root, Sum: sum}, still)
			if err != nil {
				return err
			}
		}
		var err error
		thread, err = r.do(ctx, opThread, bus.Record{ID: m.ID, Part: bus.PartThread, Session: m.Session, Text: rd.ThreadName, Remote: root, Sum: sum}, still)
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
