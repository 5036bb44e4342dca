package fleetbus

import (
	"strings"

	"gjc.dev/reconciler/pkg/bus"
)

// take copies the fleet's inbox entry at key into this machine's inbox,
// unless the ledger has it. Everything of it came from etcd and is
// judged as a file from a chat service is (bus.CheckInboxEntry): one
// refused is logged, once a revision, and touches nothing.
//
// Exactly once: the copy is staged, then recorded in copied/ (the commit
// point), then published without replacing anything. A crash before the
// record leaves a stage that recover removes (the entry is copied again
// from the start); after it, one that recover publishes; and an entry
// recorded is never staged again, so a reader that took the file never
// gets it a second time. The ledger's lock is held throughout, so this
// machine's daemon landing e meanwhile either kept it first (and e is
// not copied) or finds it copied (and drops its landing).
func (f *InboxFollower) take(d bus.Dirs, dir, key string, value []byte, rev int64) {
	session, file, _ := strings.Cut(strings.TrimPrefix(key, inboxPrefix(dir)), "/")
	if err := bus.CheckInboxEntry(session, file, value); err != nil {
		f.refuse(key, rev, err)
		return
	}
	e, l := entry{session, file}, ledgerOf(d)
	unlock, err := l.lock() // against a landing of e by this machine's daemon
	if err != nil {
		f.Log.Error(err, "an entry of the fleet's inbox waits: the ledger cannot be locked", "key", key)
		return
	}
	defer unlock()
	switch state, err := l.state(e); {
	case err != nil:
		f.Log.Error(err, "an entry of the fleet's inbox waits: the ledger cannot be read", "key", key)
		return
	case state == copied:
		f.publishCopy(d, e) // completes one a crash cut short; else nothing
		return
	case state != notHere:
		return // landed here: this machine's inbox has it from its daemon
	}
	if err := bus.StageInboxCopy(d, session, file, value); err != nil {
		f.Log.Error(err, "an entry of the fleet's inbox cannot be copied here; it waits for the next pass", "key", key)
		return
	}
	if err := l.markCopied(e); err != nil {
		f.Log.Error(err, "an entry of the fleet's inbox cannot be recorded here; it waits for the next pass", "key", key)
		_ = bus.RemoveStagedInboxCopy(d, bus.StagedInbox{Session: session, File: file})
		return
	}
	f.publishCopy(d, e)
}

// publishCopy renames e's staged copy into the inbox. A file of that name
// already there with other bytes is never replaced: the copy is dropped,
// with a word, and stays recorded so it is not tried again.
func (f *InboxFollower) publishCopy(d bus.Dirs, e entry) {
	if err := bus.PublishInboxCopy(d, e.session, e.file); err != nil {
		f.Log.Error(err, "the fleet's copy of an inbox file is dropped; the file here is left as it is", "session", e.session, "file", e.file)
		if err := bus.RemoveStagedInboxCopy(d, bus.StagedInbox{Session: e.session, File: e.file}); err != nil {
			f.Log.Error(err, "removing a dropped copy's stage", "session", e.session, "file", e.file)
		}
	}
}

// recover completes the copies a crash cut short after their record, and
// removes the stages of those it cut short before.
func (f *InboxFollower) recover(d bus.Dirs, l ledger) error {
	stages, err := bus.ListStagedInboxCopies(d)
	if err != nil {
		return err
	}
	for _, s := range stages {
		e := entry{s.Session, s.File}
		state, err := l.state(e)
		if err != nil {
			return err
		}
		if state == copied {
			f.publishCopy(d, e)
			continue
		}
		if err := bus.RemoveStagedInboxCopy(d, s); err != nil {
			return err
		}
	}
	return nil
}

// refuse logs, once for each revision of key, why its entry is refused.
// The key is cut short (the logger quotes it): it is not ours.
func (f *InboxFollower) refuse(key string, rev int64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refused == nil {
		f.refused = map[string]int64{}
	}
	if f.refused[key] == rev {
		return
	}
	f.refused[key] = rev
	shown := key
	if len(shown) > 200 {
		shown = shown[:200] + "..."
	}
	f.Log.Error(err, "an entry of the fleet's inbox is refused; nothing is written here", "key", shown)
}
