package discord_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"

	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// thread makes a session's root and thread.
func (r rig) thread(t *testing.T, key string) string {
	t.Helper()
	th, err := r.p.StartThread(ctx(t), r.root(t, key, "Session"), "Session")
	if err != nil {
		t.Fatalf("StartThread: %v", err)
	}
	return th
}

// A bot without Manage Threads may archive its thread but not lock it:
// the archive falls back to archived only, says so once in the log, and
// the session closes instead of staying Blocked.
func TestArchiveWithoutManageThreadsArchivesOnly(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logged []string
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, args)
	}, funcr.Options{})
	r := newRig(t, discord.Options{Log: log}, fakediscord.Options{})
	r.f.SetPermission(token, fakediscord.PermManageThreads, false)
	for _, key := range []string{"m1/0", "m2/0"} {
		th := r.thread(t, key)
		for range 2 { // a repeat is harmless too
			if err := r.p.Archive(ctx(t), th); err != nil {
				t.Fatalf("Archive without Manage Threads: %v", err)
			}
		}
		if tt, _ := r.f.Snapshot().Thread(th); !tt.Archived || tt.Locked {
			t.Fatalf("thread %+v: want archived, not locked", tt)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) != 1 || !strings.Contains(logged[0], "Manage Threads") {
		t.Fatalf("log %q: want one line naming Manage Threads", logged)
	}
}

// With the permission the thread is locked too (the other path).
func TestArchiveWithManageThreadsLocks(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	th := r.thread(t, "m1/0")
	if err := r.p.Archive(ctx(t), th); err != nil {
		t.Fatalf("Archive: %v", err)
	}
	if tt, _ := r.f.Snapshot().Thread(th); !tt.Archived || !tt.Locked {
		t.Fatalf("thread %+v: want archived and locked", tt)
	}
}
