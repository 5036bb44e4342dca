package relay

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
)

// posted says whether any place of the fake holds a text containing s.
func (f *fakePoster) posted(s string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, msgs := range f.places {
		for _, m := range msgs {
			if strings.Contains(m.text, s) {
				return true
			}
		}
	}
	return false
}

func (h *harness) poke() {
	select {
	case h.relay.wake <- struct{}{}:
	default:
	}
}

// dropAs writes data to path as uid 65534 (a process of its own), as
// another user of the machine drops a file in a directory open to all.
func dropAs(t *testing.T, path, data string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("running a process as another uid needs root")
	}
	cmd := exec.Command("/bin/sh", "-c", `cat > "$1"`, "sh", path)
	cmd.Stdin = strings.NewReader(data)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("writing %s as uid 65534: %v: %s", path, err, out)
	}
}

// An outbox swapped for a link to a world-writable directory while the
// relay runs is refused at the next scan: the relay says it is blocked,
// and the file another uid dropped there is never posted, moved or
// failed. Put back, the outbox posts again.
func TestOutboxSwappedForALinkIsNeverFollowed(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.send(bus.Message{ID: "01", Session: "s", Text: "before the swap"})
	h.start()
	h.waitFor("the first posted", h.outboxEmpty)

	// In the system's temp dir, which every uid can reach.
	open, err := os.MkdirTemp("", "open-outbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(open) })
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(open, "p1.json")
	dropAs(t, planted, `{"id":"p1","session":"s","text":"planted by another uid"}`)
	real := h.dirs.Outbox + ".real"
	if err := os.Rename(h.dirs.Outbox, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(open, h.dirs.Outbox); err != nil {
		t.Fatal(err)
	}
	h.poke()
	h.waitFor("the relay blocked on the swapped outbox", func() bool {
		b := h.relay.Health().Blocked
		return b != nil && b.Reason == ReasonRelayBlocked && strings.Contains(b.Message, "symbolic link")
	})
	if f.posted("planted") {
		t.Fatal("the file in the linked directory was posted")
	}
	if got := files(t, open); !slices.Equal(got, []string{"p1.json"}) {
		t.Fatalf("the linked directory holds %v, want p1.json untouched", got)
	}
	if got := files(t, h.dirs.Failed); len(got) != 0 {
		t.Fatalf("failed/ holds %v", got)
	}

	// Repaired: the real outbox back, and a message in it.
	if err := os.Remove(h.dirs.Outbox); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(real, h.dirs.Outbox); err != nil {
		t.Fatal(err)
	}
	h.send(bus.Message{ID: "02", Session: "s", Text: "after the repair"})
	h.poke()
	h.waitFor("posted again, unblocked", func() bool { return h.outboxEmpty() && h.relay.Health().Blocked == nil })
	if got := f.texts(f.sessionThread("s")); !slices.Equal(got, []string{"before the swap", "after the repair"}) {
		t.Fatalf("the thread holds %q", got)
	}
	if _, err := os.Lstat(planted); err != nil {
		t.Fatalf("the planted file was touched: %v", err)
	}
}

// A file of another uid in the outbox is never opened or posted: it is
// recorded in failed/ and left where it is; the others are posted.
func TestAnotherUIDsFileIsNeverPosted(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another uid needs root")
	}
	f := newFakePoster()
	h := newHarness(t, f)
	planted := filepath.Join(h.dirs.Outbox, "01.json")
	if err := os.WriteFile(planted, []byte(`{"id":"01","session":"s","text":"planted by another uid"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(planted, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	h.send(bus.Message{ID: "02", Session: "s", Text: "mine"})
	h.start()
	h.waitFor("the other file failed, mine posted", func() bool {
		return h.relay.Health().Failed == 1 && slices.Equal(f.texts(f.sessionThread("s")), []string{"mine"})
	})
	data, err := os.ReadFile(filepath.Join(h.dirs.Failed, "01.json"))
	if err != nil || !strings.Contains(string(data), "uid 65534") || strings.Contains(string(data), "planted") {
		t.Fatalf("failed/01.json: %s (%v); want the owner named and the content unread", data, err)
	}
	if _, err := os.Lstat(planted); err != nil {
		t.Fatalf("the other uid's file was not left in place: %v", err)
	}
	if f.posted("planted") {
		t.Fatal("another uid's file was posted")
	}
	// The operator vouches for it by giving it to the daemon's uid: it is
	// judged again and posted, not left unseen until the next restart.
	if err := os.Chown(planted, os.Geteuid(), os.Getegid()); err != nil {
		t.Fatal(err)
	}
	h.poke()
	h.waitFor("the file chowned to the daemon's uid posted", func() bool { return f.posted("planted by another uid") })
	h.waitFor("the outbox drained", h.outboxEmpty)
}

// A producer writing a file in place (no temp name, no rename) is not
// judged while it is half written: the file waits its grace, is posted
// whole once done, and nothing goes to failed/.
func TestInPlaceWriterIsNotFailedHalfWay(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.start()
	w, err := os.OpenFile(filepath.Join(h.dirs.Outbox, "01.json"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteString(`{"id":"01","session":"s",`); err != nil {
		t.Fatal(err)
	}
	h.poke()
	h.waitFor("the half-written file seen", func() bool {
		return h.relay.Health().Pending == 1 || len(files(t, h.dirs.Failed)) > 0
	})
	if _, err := w.WriteString(`"text":"written in place"}`); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h.poke()
	h.waitFor("posted, or failed", func() bool { return f.posted("written in place") || len(files(t, h.dirs.Failed)) > 0 })
	if got := files(t, h.dirs.Failed); len(got) != 0 {
		t.Fatalf("failed/ holds %v: the file was judged half written", got)
	}
	h.waitFor("the outbox drained", h.outboxEmpty)
}

// A file that never becomes a message fails once its grace is over, and a
// later failure of the same name keeps the first record.
func TestRefusedAgainKeepsTheFirstRecord(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.start()
	for i, text := range []string{`{"id":"01","first`, `{"id":"01","second`} {
		if err := os.WriteFile(filepath.Join(h.dirs.Outbox, "01.json"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		h.poke()
		h.waitFor("failed", func() bool { return h.relay.Health().Failed == i+1 && h.outboxEmpty() })
	}
	if got := files(t, h.dirs.Failed); !slices.Equal(got, []string{"01.json", "01~2.json"}) {
		t.Fatalf("failed/ holds %v, want both records", got)
	}
	if data, err := os.ReadFile(filepath.Join(h.dirs.Failed, "01.json")); err != nil || !strings.Contains(string(data), "first") {
		t.Fatalf("failed/01.json: %s (%v), want the first record", data, err)
	}
}
