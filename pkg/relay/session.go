package relay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

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
		delete(r.edits.replacing, id)
		r.mu.Unlock()
		r.fin.hand(id) // out of the outbox off this path (finish.go)
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
	m, reason, err := r.load(ctx, name)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case errors.Is(err, errStopped):
		return err
	case err != nil:
		return r.failName(ctx, name, err.Error())
	case reason != "":
		return r.failName(ctx, name, reason)
	}
	sum := bus.MessageSum(m)
	rd := Render(m, r.opts.Render)
	ss, _ := r.sessionNow(session, "")

	// A closed session first: send refuses any message for one, whatever
	// its level, so a file dropped by hand fails the same way.
	switch {
	case ss.closed && m.Event == bus.EventClose:
		return r.sent(id, m.Entries()) // closed already
	case ss.closed:
		r.mu.Lock()
		closed := r.st.closedError(session)
		r.mu.Unlock()
		return r.failName(ctx, name, closed.Error())
	case rd.Skip:
		r.filter(id)
		return r.sent(id, m.Entries())
	case m.Event == bus.EventClose && ss.root == "" && ss.gen == 0:
		return r.sent(id, m.Entries()) // never opened: nothing to close
	case m.Event == bus.EventMessage && len(rd.Parts) == 0 && len(m.Attachments) == 0:
		return r.failName(ctx, name, "nothing to post: the message has no title, no text and no files")
	}
	// Every file is checked before the message's first request: one the
	// service would refuse fails the message now, nothing of it posted.
	files, err := r.prepareFiles(ctx, m, rd, r.partState)
	var ff *fileFailure
	switch {
	case errors.As(err, &ff):
		return r.failName(ctx, name, ff.reason)
	case err != nil:
		return err
	}
	still := func() bool {
		box, err := r.openBusOnce()
		if err != nil {
			return true // cannot tell: kept, and the block says why
		}
		defer box.Close()
		return box.Has(name)
	}
	err = r.post(ctx, m, sum, rd, files, still)
	var refused *errRefused
	if errors.Is(err, errGone) {
		r.clearBlock(session)
		r.opts.Log.Info("message taken out of the outbox while it waited; dropped", "id", id)
		return nil
	}
	if errors.As(err, &refused) {
		return r.failName(ctx, name, "refused by the service: "+refused.Error())
	}
	if errors.As(err, &ff) {
		return r.failName(ctx, name, ff.reason)
	}
	if err != nil {
		return err
	}
	if m.Event == bus.EventAsk {
		if err := r.askPosted(ctx, m, rd); err != nil {
			return err
		}
	}
	r.opts.Step("message:before-sent", id)
	return r.sent(id, m.Entries())
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
func (r *Relay) post(ctx context.Context, m bus.Message, sum string, rd Rendered, files []filePart, still func() bool) error {
	b := r.newBackoff()
	for remade := false; ; remade = true {
		ss, replaced := r.sessionNow(m.Session, m.Replaces)
		err := r.postIn(ctx, m, sum, rd, files, ss, replaced, still)
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
func (r *Relay) postIn(ctx context.Context, m bus.Message, sum string, rd Rendered, files []filePart, ss sessionState, replaced []string, still func() bool) error {
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
	} else if len(replaced) > len(parts) && len(parts) > 0 {
		// Every part of the replaced message is edited, its last one (an
		// ask's buttons) included: none is left showing what it said.
		parts = spread(parts, len(replaced))
	}
	// A message with files is never coalesced away: its files are posts
	// of their own, which no later edit shows.
	if !rd.Close && len(m.Attachments) == 0 && rd.TextFile == nil {
		if skip, err := r.coalesced(ctx, m, thread, parts, replaced); skip || err != nil {
			return err
		}
	}
	for k, text := range parts {
		rec := bus.Record{ID: m.ID, Part: strconv.Itoa(k), Session: m.Session, Thread: thread, Text: text, Parts: len(parts), Sum: sum}
		op := opPost
		var deco decoration
		if k == len(parts)-1 {
			deco = rd.Ask // an ask's buttons are on its last part
		}
		if k < len(replaced) && replaced[k] != "" && !rd.Close {
			rec.Part, rec.Remote, op = editPart(k), replaced[k], opEdit
			if !r.editTurn(ctx, rec.Remote) {
				return errStopped
			}
		}
		if _, err := r.doDecorated(ctx, op, rec, deco, still); err != nil {
			return err
		}
		if op == opEdit {
			r.edited(rec.Remote)
		}
	}
	// The files after the text, each its own message (files.go).
	for _, fp := range files {
		rec := fp.record(bus.Record{ID: m.ID, Session: m.Session, Thread: thread, Sum: sum})
		deco := decoration{upload: r.upload(fp), verify: func() error { return r.verify(fp) }}
		if _, err := r.doDecorated(ctx, opFile, rec, deco, still); err != nil {
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

// load reads a queued outbox file for its turn, through a bus judged
// now (waiting while it is refused), and says why it is not posted when
// its id already named other content ("" when it is: see reused). One
// that no longer decodes while it is young (rewritten in place since it
// was queued) is read again once its grace ends.
func (r *Relay) load(ctx context.Context, name string) (bus.Message, string, error) {
	for {
		box, err := r.openBus(ctx)
		if err != nil {
			return bus.Message{}, "", err
		}
		m, e, err := box.Take(name)
		verdict, at := bus.Judge(err, e.ModTime, time.Now())
		if verdict != bus.Later {
			reason := ""
			if err == nil {
				reason = r.reused(box, name, m)
			}
			box.Close()
			return m, reason, err
		}
		box.Close()
		if !sleep(ctx, time.Until(at)) {
			return bus.Message{}, "", errStopped
		}
	}
}

// failName moves an outbox file to failed/ with the reason, through a
// bus judged now (waiting while it is refused).
func (r *Relay) failName(ctx context.Context, name, reason string) error {
	box, err := r.openBus(ctx)
	if err != nil {
		return err
	}
	defer box.Close()
	r.failFile(box, name, reason)
	return nil
}

// reused says why m, the outbox file name, is not the message its id
// already named ("" when it is): the journal's attempts for the id were
// made for other content, or sent/ holds other content under the name.
// Checked before any request, so nothing of the second message is posted.
func (r *Relay) reused(box *bus.Box, name string, m bus.Message) string {
	r.mu.Lock()
	prev := r.st.sums[m.ID]
	r.mu.Unlock()
	if prev != "" && prev != bus.MessageSum(m) {
		return fmt.Sprintf("id %s was already used, for other content: this message is not posted", m.ID)
	}
	if sent, err := box.Sent(name); err == nil && !sent.Equal(m.WithDefaults()) {
		return fmt.Sprintf("id %s was already posted with other content (sent/%s): this message is not posted", m.ID, name)
	}
	return ""
}

// sent marks a delivered message for sent/, its files/ entries for
// sent/<id>.files/: the finisher moves them once the worker hands the
// message over (finish.go). A sent/ file of that name with other content
// means the id was used twice: the new one goes to failed/ then.
func (r *Relay) sent(id string, entries []string) error {
	r.fin.toSent(id, entries)
	return nil
}
