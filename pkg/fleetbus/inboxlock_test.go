package fleetbus

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/bus"
)

// A new owner's daemon landing a reply again (keep) and the loop copying
// the same reply from etcd (take) are two processes: each reads and
// changes the entry's state under the ledger's lock, so the one that
// comes second sees what the first did, and the file is published once
// (the author's open case: a reader taking it between the two publishes
// would otherwise get it twice).
func TestLandingAndCopyOfOneEntryTakeTurns(t *testing.T) {
	d, err := bus.Paths(t.TempDir(), "bot")
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	l := ledgerOf(d)
	waiting := make(chan struct{}, 1)
	lockWaiting = func() { waiting <- struct{}{} }
	t.Cleanup(func() { lockWaiting = nil })
	msg := func(id string) (entry, []byte) {
		m := bus.InboxMessage{ID: id, Session: "s1", User: "alice", Text: "reply", TS: "2026-12-02T08:00:00.000Z"}
		file, err := bus.InboxFileName(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bus.StageInbox(d, m); err != nil { // the daemon's landing, recorded
			t.Fatal(err)
		}
		data, _ := bus.EncodeInbox(m)
		return entry{"s1", file}, data
	}
	turn := func(what string, done <-chan struct{}) {
		t.Helper()
		select {
		case <-waiting:
		case <-done:
			t.Fatalf("%s went ahead while the other side held the ledger", what)
		case <-time.After(20 * time.Second):
			t.Fatalf("%s neither waited nor ended", what)
		}
	}

	// The loop is between staging its copy and recording it when the
	// daemon lands the same reply: the daemon waits, then finds it copied.
	e, data := msg("1001")
	unlock, err := l.lock()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.StageInboxCopy(d, e.session, e.file, data); err != nil {
		t.Fatal(err)
	}
	kept := make(chan struct{})
	var isCopied bool
	var keepErr error
	go func() {
		defer close(kept)
		isCopied, keepErr = (&RelayBus{dirs: d}).KeepInbox(e.session, e.file)
	}()
	turn("the daemon's keep", kept)
	if err := l.markCopied(e); err != nil {
		t.Fatal(err)
	}
	if err := bus.PublishInboxCopy(d, e.session, e.file); err != nil {
		t.Fatal(err)
	}
	unlock()
	<-kept
	if keepErr != nil || !isCopied {
		t.Fatalf("the daemon's keep of a reply copied meanwhile: copied %v, %v", isCopied, keepErr)
	}

	// The daemon is keeping a landing when the loop reads the same entry
	// from etcd: the loop waits, then leaves it to the landing.
	e, data = msg("1002")
	if unlock, err = l.lock(); err != nil {
		t.Fatal(err)
	}
	took := make(chan struct{})
	f := &InboxFollower{Log: testr.New(t)}
	dir := Dir("/reconciler/", "bot")
	go func() {
		defer close(took)
		f.take(d, dir, inboxKey(dir, e.session, e.file), data, 1)
	}()
	turn("the loop's copy", took)
	if err := atomicfile.Write(l.path(landed, e), data); err != nil {
		t.Fatal(err)
	}
	unlock()
	<-took
	if _, err := os.Lstat(filepath.Join(d.Inbox, e.session, e.file)); err == nil {
		t.Fatal("the loop copied a reply its daemon was landing")
	}
	if stages, _ := bus.ListStagedInboxCopies(d); len(stages) != 0 {
		t.Fatalf("copies staged: %v", stages)
	}
}
