package inbound

import (
	"context"
	"fmt"

	"gjc.dev/reconciler/pkg/bus"
)

// land decides ev and, if it may land and is not seen, lands it: stage
// the file, append its landed record, publish the file. The record is the
// commit point: before it is durable nothing was landed (a crash leaves a
// stage that the next start removes); once it is, the message is seen
// for good, and a crash leaves a stage the next start publishes. A reply
// that could not land is owed: retried on its own, and the later replies
// of its session wait behind it (owed.go).
func (in *Inbound) land(ctx context.Context, ev Event) (Outcome, error) {
	if len(ev.Files) > 0 {
		return in.landWithFiles(ctx, ev)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.landLocked(ctx, ev, nil)
}

// landLocked is land with in.mu held. A reply with files lands only with
// fetched, its files staged (files.go): without, it returns errNeedsFetch
// where it would stage the reply, having changed nothing.
func (in *Inbound) landLocked(ctx context.Context, ev Event, fetched *fetchedFiles) (Outcome, error) {
	// Decided under the lock, so that the counts tell one story: a reply
	// judged outside every session was counted so before any landing of
	// it that a history read (started by its thread's record) could make.
	session, reason := decide(ev, in.authorized, in.opts.Sessions.SessionAt)
	if reason != "" {
		in.settle(ev.ID)
		in.health.Ignored[reason]++
		in.changed()
		if reason == Unauthorized || reason == Unusable {
			// A person wrote in a session's thread and it did not land:
			// the operator will ask why. Bots, edits and other threads
			// are routine and only counted.
			in.opts.Log.Info("reply ignored", "reason", string(reason), "message", ev.ID, "user", ev.User, "thread", ev.Place)
		}
		return Ignored, nil
	}
	if s, ok := in.seen[ev.ID]; ok {
		if !s.published {
			// Recorded, but the rename failed: this delivery, or the
			// retry, completes its landing (counted landed already, and
			// not a duplicate: the retry is no delivery).
			if err := in.publish(s.rec.Session, s.rec.File); err != nil {
				return 0, in.failed(fmt.Errorf("publishing %s: %w", ev.ID, err))
			}
			s.published = true
			in.seen[ev.ID] = s
			in.opts.Step(StepPublished, ev.ID)
			in.settle(ev.ID)
			in.landedClean()
			in.changed()
			return Duplicate, nil
		}
		in.health.Duplicates++
		in.changed()
		return Duplicate, nil
	}
	if in.owedBefore(session, ev) {
		in.owe(ev, session)
		in.changed()
		return 0, errWaitsBehind(ev, session)
	}
	if len(ev.Files) > 0 && fetched == nil {
		return 0, errNeedsFetch{session}
	}
	if err := in.opts.Fence(); err != nil {
		in.owe(ev, session)
		return 0, in.failed(fmt.Errorf("landing %s: %w", ev.ID, err))
	}
	m := bus.InboxMessage{ID: ev.ID, Session: session, User: ev.User, Text: ev.Text, TS: bus.InboxTime(ev.Time)}
	if fetched != nil {
		m.Files = fetched.files
	}
	file, err := bus.StageInbox(in.opts.Bus, m)
	if err != nil {
		in.owe(ev, session)
		return 0, in.failed(fmt.Errorf("landing %s: %w", ev.ID, err))
	}
	in.opts.Step(StepStaged, ev.ID)
	rec := bus.InboundRecord{Op: bus.OpLanded, ID: ev.ID, Place: ev.Place, Session: session, File: file, At: ev.Time.UnixMilli()}
	if fetched != nil {
		// From here the files' stage is the record's, if it becomes
		// durable: it is never discarded, only published or, at the next
		// start, removed if no record names it.
		fetched.recording = true
	}
	if err := in.appendLocked(ctx, rec); err != nil {
		// The stage stays: if the record did become durable the next
		// start publishes it; if not, removes it (or the retry stages it
		// again).
		in.owe(ev, session)
		return 0, in.failed(fmt.Errorf("landing %s: %w", ev.ID, err))
	}
	in.opts.Step(StepRecorded, ev.ID)
	s := seenMsg{rec: rec}
	perr := in.publish(session, file)
	s.published = perr == nil
	in.seen[ev.ID] = s
	in.unreacted[ev.ID] = rec
	in.health.Landed++
	if fetched != nil {
		in.countFiles(ev.ID, fetched.files)
	}
	in.health.LastLandedAt = ev.Time
	if !ev.Time.IsZero() {
		in.health.LastLag = max(0, in.opts.Now().Sub(ev.Time))
	}
	in.health.Unreacted = len(in.unreacted)
	in.changed()
	poke(in.reacts)
	if perr != nil {
		// Seen for good: it never lands twice. Its file appears when the
		// retry, a redelivery or the next start publishes the stage.
		in.owe(ev, session)
		return Landed, in.failed(fmt.Errorf("landed %s, but %w", ev.ID, perr))
	}
	in.opts.Step(StepPublished, ev.ID)
	in.settle(ev.ID)
	in.landedClean()
	return Landed, nil
}

// publish completes a recorded landing: the fleet keeps it (Keep) while
// its stage is there to read; its files' directory is published, then
// its file (so a reader that sees a reply finds its files), or the file
// is dropped if it is here already from the fleet. The files stay
// published then: they were fetched here, and the fleet's copy lists
// them, under the same names.
func (in *Inbound) publish(session, file string) error {
	copied := false
	if in.opts.Keep != nil {
		var err error
		if copied, err = in.opts.Keep(session, file); err != nil {
			return err
		}
	}
	moved, err := bus.PublishInboxFiles(in.opts.Bus, session, file)
	if err != nil {
		return err
	}
	if moved {
		in.opts.Step(StepFilesPublished, bus.InboxFileID(file))
	}
	if copied {
		return bus.RemoveStagedInbox(in.opts.Bus, bus.StagedInbox{Session: session, File: file})
	}
	return bus.PublishInbox(in.opts.Bus, session, file)
}

// landedClean clears the latest error once a landing succeeded and no
// reply is owed: an owed reply keeps it, so that a later reply landing
// does not hide the earlier one's failure. in.mu is held.
func (in *Inbound) landedClean() {
	if len(in.owed) == 0 {
		in.health.Error = ""
	}
}

// appendLocked appends recs, reopening the journal when an earlier
// append broke it. in.mu is held.
func (in *Inbound) appendLocked(ctx context.Context, recs ...bus.InboundRecord) error {
	if in.closed {
		// A Receive or Decide that raced Stop: nothing lands after it,
		// and the journal is not opened again to be left open.
		return errStopped
	}
	if in.j == nil {
		j, err := bus.OpenInboundJournal(in.opts.Bus.InboundJournalPath())
		if err != nil {
			return err
		}
		in.j = j
	}
	if err := in.j.Append(ctx, recs...); err != nil {
		// What the file holds past its last fsync is unknown: reopen it
		// (cutting a torn line) before the next append.
		_ = in.j.Close()
		in.j = nil
		return err
	}
	return nil
}

// failed records err as the Inbound's latest problem and returns it.
// in.mu is held.
func (in *Inbound) failed(err error) error {
	in.health.Error = err.Error()
	in.health.Failures++
	in.changed()
	return err
}
