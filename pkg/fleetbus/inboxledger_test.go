package fleetbus

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// The ledger forgets a put or a copied entry only once etcd has surely
// forgotten it (LedgerKeep after the put, which is never before the
// record's date), never a landing still waiting to be put, and clears a
// crashed write's temp file.
func TestLedgerPrune(t *testing.T) {
	if LedgerKeep <= InboxTTL {
		t.Fatalf("LedgerKeep %v must outlast the fleet's inbox lease %v", LedgerKeep, InboxTTL)
	}
	d, err := bus.Paths(t.TempDir(), "bot")
	if err != nil {
		t.Fatal(err)
	}
	l := ledgerOf(d)
	if err := l.ensure(); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old, young := now.Add(-LedgerKeep-time.Minute), now.Add(-InboxTTL)
	e := func(id string) entry { return entry{"s1", "1796198400000-" + id + ".json"} }
	files := map[string]time.Time{
		l.path(landed, e("1")): old, // never put yet: kept
		l.path(put, e("2")):    old,
		l.path(put, e("3")):    young,
		l.path(copied, e("4")): old,
		l.path(copied, e("5")): young,
		filepath.Join(l.stateDir(copied), ".s1,x.json.tmp-0123456789abcdef"): now.Add(-2 * time.Hour),
		filepath.Join(l.stateDir(copied), "not-an-entry"):                    old, // not ours: left
	}
	for p, at := range files {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.prune(now, nil); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		l.path(landed, e("1")): true, l.path(put, e("2")): false, l.path(put, e("3")): true,
		l.path(copied, e("4")): false, l.path(copied, e("5")): true,
		filepath.Join(l.stateDir(copied), ".s1,x.json.tmp-0123456789abcdef"): false,
		filepath.Join(l.stateDir(copied), "not-an-entry"):                    true,
	} {
		if _, err := os.Lstat(p); (err == nil) != want {
			t.Errorf("%s: kept %v, want %v", filepath.Base(p), err == nil, want)
		}
	}

	// An entry etcd still has is not forgotten, however old its record:
	// each change of etcd's leader extends the entry's lease by its TTL.
	for _, p := range []string{l.path(put, e("6")), l.path(copied, e("7"))} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.prune(now, map[entry]bool{e("6"): true, e("7"): true}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"6", "7"} {
		if state, err := l.state(e(id)); err != nil || state == notHere {
			t.Errorf("entry %s, still in etcd, forgotten: %q, %v", id, state, err)
		}
	}

	// A put is dated when it is made, not when it landed: an entry kept
	// for long before etcd took it lives its LedgerKeep from the put.
	if err := l.markPut(e("1"), now); err != nil {
		t.Fatal(err)
	}
	if err := l.prune(now.Add(InboxTTL), nil); err != nil {
		t.Fatal(err)
	}
	if state, err := l.state(e("1")); err != nil || state != put {
		t.Fatalf("a landing put now, a day later: %q, %v", state, err)
	}
}

// The ledger's own directory is judged as the bus's are: a symbolic link
// there (to another private directory of the same user) would move the
// record of what was copied here, and is refused before anything is
// written through it.
func TestLedgerRefusesALinkedDirectory(t *testing.T) {
	d, err := bus.Paths(t.TempDir(), "bot")
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "ledger")
	if err := os.Mkdir(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(d.Dir, FleetInbox)); err != nil {
		t.Fatal(err)
	}
	l := ledgerOf(d)
	if err := l.ensure(); err == nil {
		t.Fatal("a ledger behind a symbolic link was taken")
	}
	if _, err := l.keep(entry{"s1", "1796198400000-1.json"}, []byte("{}")); err == nil {
		t.Fatal("a landing was kept through a symbolic link")
	}
	if names, _ := os.ReadDir(elsewhere); len(names) != 0 {
		t.Fatalf("written through the link: %v", names)
	}
}
