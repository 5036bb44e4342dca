package inbound

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
)

// keeper is a fleet's Keep: it reads each stage it is told of, as the
// fleet's ledger does, and says which files were copied here already.
type keeper struct {
	t      *testing.T
	d      bus.Dirs
	mu     sync.Mutex
	kept   map[string]string // session/file -> the stage's bytes
	copied map[string]bool
	fail   error
}

func (k *keeper) keep(session, file string) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fail != nil {
		return false, k.fail
	}
	if k.copied[session+"/"+file] {
		return true, nil
	}
	data, err := bus.ReadStagedInbox(k.d, session, file)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// Before it is published: no reader can have taken it yet.
	if _, err := os.Lstat(filepath.Join(k.d.Inbox, session, file)); err == nil {
		k.t.Errorf("%s/%s kept after it was published", session, file)
	}
	k.kept[session+"/"+file] = string(data)
	return false, nil
}

func (k *keeper) got() map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]string{}
	for key, v := range k.kept {
		out[key] = v
	}
	return out
}

// Every landing is kept, its very bytes, before its file is published; a
// keep that fails leaves the landing unpublished, and the retry publishes
// it once kept.
func TestKeepSeesEachLandingBeforeItsFile(t *testing.T) {
	r := newRig(t)
	k := &keeper{t: t, d: r.d, kept: map[string]string{}, copied: map[string]bool{}}
	r.keep = k.keep
	r.start()
	r.receive(ev("100", "T1", "alice"))
	files := r.files()
	if kept := k.got(); len(kept) != 1 || len(files) != 1 {
		t.Fatalf("kept %v, inbox %v", kept, files)
	}
	for key, data := range files {
		if k.got()[key] != data {
			t.Fatalf("kept %q for %s, published %q", k.got()[key], key, data)
		}
	}

	k.mu.Lock()
	k.fail = errors.New("the ledger is full")
	k.mu.Unlock()
	if _, err := r.in.Receive(t.Context(), ev("200", "T2", "alice")); err == nil {
		t.Fatal("a landing the fleet could not keep reported no error")
	}
	if len(r.files()) != 1 {
		t.Fatalf("published without being kept: %v", r.files())
	}
	k.mu.Lock()
	k.fail = nil
	k.mu.Unlock()
	waitUntil(t, "the retry to publish it", func() bool { return len(r.files()) == 2 })
	if len(k.got()) != 2 {
		t.Fatalf("kept %v", k.got())
	}
}

// A reply the previous owner landed and the fleet copied here already,
// landed again after a takeover (its history read anew), is not
// published a second time: its stage is dropped, and it stays seen.
func TestKeepCopiedDropsTheStage(t *testing.T) {
	r := newRig(t)
	k := &keeper{t: t, d: r.d, kept: map[string]string{}, copied: map[string]bool{}}
	r.keep = k.keep
	e := ev("100", "T1", "alice")
	name, _ := bus.InboxFileName(bus.InboxMessage{ID: "100", TS: bus.InboxTime(e.Time)})
	k.copied["s1/"+name] = true
	r.start()
	if o := r.receive(e); o != Landed {
		t.Fatalf("outcome %v", o)
	}
	if files := r.files(); len(files) != 0 {
		t.Fatalf("a file copied here already was published again: %v", files)
	}
	if staged, _ := bus.ListStagedInbox(r.d); len(staged) != 0 {
		t.Fatalf("stage left: %v", staged)
	}
	if o := r.receive(e); o != Duplicate {
		t.Fatalf("delivered again: %v", o)
	}
}
