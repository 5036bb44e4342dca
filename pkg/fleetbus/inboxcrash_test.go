package fleetbus_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/fleetbus"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
)

// What a loop killed halfway through a copy leaves is completed or undone
// at its next start, each entry ending in the inbox once: a stage never
// recorded is removed and copied afresh; a recorded one is published; a
// recorded one whose file the reader took stays taken.
func TestInboxCopyCutShortIsCompletedOnce(t *testing.T) {
	c := etcdtest.Start(t, etcdtest.Options{})
	m := newMachine(t, c)
	dir := fleetbus.Dir(prefix, "bot") + "inbox/"
	entries := map[string]string{}
	for _, id := range []string{"1001", "1002", "1003"} {
		file := "1796198400000-" + id + ".json"
		data := `{"id":"` + id + `","session":"s1","user":"alice","text":"reply","ts":"2026-12-02T08:00:00.000Z"}`
		entries[file] = data
		if _, err := m.cli.Put(context.Background(), dir+"s1/"+file, data); err != nil {
			t.Fatal(err)
		}
		if err := bus.EnsureDirs(m.dirs); err != nil {
			t.Fatal(err)
		}
		if err := bus.StageInboxCopy(m.dirs, "s1", file, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	// 1002 and 1003 were recorded (the commit point) before the kill;
	// 1003's file was published and taken by its reader since.
	for _, id := range []string{"1002", "1003"} {
		record(t, m, "s1", "1796198400000-"+id+".json")
	}
	if err := bus.RemoveStagedInboxCopy(m.dirs, bus.StagedInbox{Session: "s1", File: "1796198400000-1003.json"}); err != nil {
		t.Fatal(err)
	}
	m.sync()
	want := map[string]string{}
	for _, id := range []string{"1001", "1002"} {
		file := "1796198400000-" + id + ".json"
		want[filepath.Join("inbox", "s1", file)] = entries[file]
	}
	if got := m.files(); !same(got, want) {
		t.Fatalf("files = %v\nwant %v", got, want)
	}
}

// record writes the ledger's record that a copy of file was made here,
// as the copy's commit point does.
func record(t *testing.T, m *machine, session, file string) {
	t.Helper()
	dir := filepath.Join(m.dirs.Dir, fleetbus.FleetInbox, "copied")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, session+","+file), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A landing kept while the loop was down (or killed before its put) is
// put at the loop's next start and reaches the other machines, but never
// comes back to its own machine's inbox; one put already whose record the
// kill cut short is put again as nothing new.
func TestInboxLandingKeptWhileTheLoopWasDownIsPutAtStart(t *testing.T) {
	c := etcdtest.Start(t, etcdtest.Options{Members: 3})
	m1, m2 := newMachine(t, c), newMachine(t, c)
	m2.start()
	o := newOwner(t, m1)
	file1, data1 := o.land(t, 1)
	if got := m1.files(); !same(got, map[string]string{file1: data1}) {
		t.Fatalf("the owner's inbox = %v", got)
	}
	// Its reader takes it at once, before the loop put it: the loop's
	// pass puts it, and does not give it back.
	if err := os.Remove(filepath.Join(m1.dirs.Dir, file1)); err != nil {
		t.Fatal(err)
	}
	m1.sync()
	if got := m1.files(); len(got) != 0 {
		t.Fatalf("the landing machine got its own landing again: %v", got)
	}
	waitFor(t, "reply 1 on machine 2", func() bool { return same(m2.files(), map[string]string{file1: data1}) })

	// Reply 2 is put, but the kill comes before its record: still in
	// landed/ at the next start.
	file2, data2 := o.land(t, 2)
	kept := filepath.Join(m1.dirs.Dir, fleetbus.FleetInbox, "landed", "s1,"+filepath.Base(file2))
	if _, err := os.Stat(kept); err != nil {
		t.Fatalf("reply 2 not kept for the fleet: %v", err)
	}
	if _, err := m1.cli.Put(context.Background(), fleetbus.Dir(prefix, "bot")+"inbox/s1/"+filepath.Base(file2), data2); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "reply 2 on machine 2", func() bool {
		return same(m2.files(), map[string]string{file1: data1, file2: data2})
	})
	if err := os.Remove(filepath.Join(m2.dirs.Dir, file2)); err != nil {
		t.Fatal(err)
	}
	m1.start()
	waitFor(t, "reply 2 recorded put", func() bool {
		_, err := os.Stat(filepath.Join(m1.dirs.Dir, fleetbus.FleetInbox, "put", "s1,"+filepath.Base(file2)))
		return err == nil
	})
	m2.sync()
	if got := m2.files(); !same(got, map[string]string{file1: data1}) {
		t.Fatalf("machine 2's inbox = %v, want reply 1 alone (its reader took reply 2)", got)
	}
	if got := m1.files(); !same(got, map[string]string{file2: data2}) {
		t.Fatalf("the owner's inbox = %v, want reply 2 alone (its reader took reply 1)", got)
	}
}

// etcd extends every lease by its whole TTL at each change of leader, so
// an entry can outlive InboxTTL: its record here is kept while the entry
// is there, however old, and a reader that took the file never gets it
// back.
func TestInboxRecordOutlivesAnExtendedLease(t *testing.T) {
	c := etcdtest.Start(t, etcdtest.Options{})
	m := newMachine(t, c)
	file := "1796198400000-1001.json"
	data := `{"id":"1001","session":"s1","user":"alice","text":"reply","ts":"2026-12-02T08:00:00.000Z"}`
	if _, err := m.cli.Put(context.Background(), fleetbus.Dir(prefix, "bot")+"inbox/s1/"+file, data); err != nil {
		t.Fatal(err)
	}
	m.sync()
	if err := os.Remove(filepath.Join(m.dirs.Inbox, "s1", file)); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-fleetbus.LedgerKeep - time.Hour)
	if err := os.Chtimes(filepath.Join(m.dirs.Dir, fleetbus.FleetInbox, "copied", "s1,"+file), old, old); err != nil {
		t.Fatal(err)
	}
	m.sync()
	m.sync()
	if got := m.files(); len(got) != 0 {
		t.Fatalf("a reply taken by its reader came back once its record was old: %v", got)
	}
}

// The landing machine's loop, watching, sees its own put come back from
// etcd after the reader took the file: it is not copied back (the pass
// every Resync never reads such an entry; the watch hands it over).
func TestInboxWatchLeavesALandingHereAlone(t *testing.T) {
	c := etcdtest.Start(t, etcdtest.Options{})
	m := newMachine(t, c)
	dir := fleetbus.Dir(prefix, "bot") + "inbox/s1/"
	entry := func(id string) (string, string) {
		return "1796198400000-" + id + ".json", `{"id":"` + id + `","session":"s1","user":"alice","text":"reply","ts":"2026-12-02T08:00:00.000Z"}`
	}
	put := func(id string) string {
		file, data := entry(id)
		if _, err := m.cli.Put(context.Background(), dir+file, data); err != nil {
			t.Fatal(err)
		}
		return filepath.Join("inbox", "s1", file)
	}
	// Once another machine's 1000 is here, the loop listed the fleet's
	// inbox: what is put after comes through its watch.
	m.start()
	first := put("1000")
	waitFor(t, "1000 copied", func() bool { return m.files()[first] != "" })
	if err := os.Remove(filepath.Join(m.dirs.Dir, first)); err != nil {
		t.Fatal(err)
	}
	// The daemon here landed 1001, the loop put it, and the reader took
	// its file: the put comes back through the watch.
	file, _ := entry("1001")
	if err := os.WriteFile(filepath.Join(m.dirs.Dir, fleetbus.FleetInbox, "put", "s1,"+file), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	put("1001")
	// Another machine's 1002 comes after it in the watch: once it is
	// here, 1001's event was handled.
	last := put("1002")
	waitFor(t, "1002 copied", func() bool { return m.files()[last] != "" })
	if got := m.files(); len(got) != 1 || got[last] == "" {
		t.Fatalf("files = %v, want only %s", got, last)
	}
}
