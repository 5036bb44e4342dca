package platform_test

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

func testKey(t *testing.T) string {
	return fmt.Sprintf("reconciler-test/%d/%d", os.Getpid(), time.Now().UnixNano())
}

// The kernel holds the lock for the process: a second taker is refused and
// told the holder's PID, and once the holder dies (kill -9, nothing
// cleaned up) the name is free again.
func TestNameLockHeldUntilHolderDies(t *testing.T) {
	key := testKey(t)
	h := startHelper(t, "", "namelock")
	h.Send(t, key)
	if got := h.Recv(t); got != "held" {
		t.Fatalf("helper: %q", got)
	}
	holder, held, err := platform.NameLockHolder(key)
	if err != nil || !held || holder.PID != h.Cmd.Process.Pid || holder.UID != os.Getuid() {
		t.Fatalf("NameLockHolder = %+v, %t, %v; want pid %d, uid %d", holder, held, err, h.Cmd.Process.Pid, os.Getuid())
	}
	_, err = platform.TakeNameLock(key)
	var heldErr *platform.NameHeldError
	if !errors.As(err, &heldErr) || heldErr.Holder.PID != h.Cmd.Process.Pid {
		t.Fatalf("TakeNameLock beside a holder = %v, want a NameHeldError naming %d", err, h.Cmd.Process.Pid)
	}

	if err := h.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = h.Cmd.Wait()
	if _, held, err := platform.NameLockHolder(key); held || err != nil {
		t.Fatalf("after the holder died: held=%t err=%v", held, err)
	}
	l, err := platform.TakeNameLock(key)
	if err != nil {
		t.Fatalf("TakeNameLock after the holder died: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
}

// Within one process the lock is exclusive too, and Release frees it.
func TestNameLockRelease(t *testing.T) {
	key := testKey(t)
	l, err := platform.TakeNameLock(key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := platform.TakeNameLock(key); err == nil {
		t.Fatal("a second TakeNameLock in the same process succeeded")
	}
	// Lookups are answered however many there are (the backlog is drained).
	for range 100 {
		if holder, held, err := platform.NameLockHolder(key); err != nil || !held || holder.PID != os.Getpid() {
			t.Fatalf("NameLockHolder = %+v, %t, %v", holder, held, err)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, held, err := platform.NameLockHolder(key); held || err != nil {
		t.Fatalf("after Release: held=%t err=%v", held, err)
	}
}

func TestNameLockRefusesBadKeys(t *testing.T) {
	for _, key := range []string{"", "has space", string(make([]byte, platform.MaxNameLockKey+1)), "nul\x00"} {
		if _, err := platform.TakeNameLock(key); err == nil {
			t.Errorf("TakeNameLock(%q) succeeded", key)
		}
	}
}
