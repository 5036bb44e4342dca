package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"os"
	"path/filepath"
	"testing"

	"gjc.dev/reconciler/pkg/platform"
)

func TestPathsFor(t *testing.T) {
	p := ownership.PathsFor("/agent", "discord")
	want := ownership.Paths{
		Dir:     "/agent/sdk/daemons/discord",
		State:   "/agent/sdk/daemons/discord/state.json",
		Lock:    "/agent/sdk/daemons/discord/owner.lock",
		Reclaim: "/agent/sdk/daemons/discord/owner.lock.reclaim",
		Control: "/agent/sdk/daemons/discord/control.json",
	}
	if p != want || p.Name() != "discord" {
		t.Fatalf("PathsFor = %+v", p)
	}
}

func TestEnsureDir(t *testing.T) {
	agentDir := filepath.Join(t.TempDir(), "agent")
	p := ownership.PathsFor(agentDir, "bot")
	if err := EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(p); err != nil {
		t.Fatalf("second EnsureDir: %v", err)
	}
	for _, dir := range []string{agentDir, filepath.Join(agentDir, "sdk"), filepath.Join(agentDir, "sdk", "daemons"), p.Dir} {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v, %v", dir, fi.Mode(), err)
		}
	}

	t.Run("group-writable level", func(t *testing.T) {
		p := ownership.PathsFor(t.TempDir(), "bot")
		if err := os.MkdirAll(filepath.Join(filepath.Dir(p.Dir)), 0o700); err != nil {
			t.Fatal(err)
		}
		sdk := filepath.Dir(filepath.Dir(p.Dir))
		if err := os.Chmod(sdk, 0o775); err != nil {
			t.Fatal(err)
		}
		if err := EnsureDir(p); !errors.Is(err, platform.ErrNotPrivate) || ownership.Reason(err) != ownership.ReasonUnsafeDirectory {
			t.Fatalf("EnsureDir = %v", err)
		}
		if _, err := os.Lstat(p.Dir); !os.IsNotExist(err) {
			t.Fatal("created inside a refused level")
		}
	})
	t.Run("symlinked daemon dir", func(t *testing.T) {
		p := ownership.PathsFor(t.TempDir(), "bot")
		if err := os.MkdirAll(filepath.Dir(p.Dir), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(t.TempDir(), p.Dir); err != nil {
			t.Fatal(err)
		}
		if err := EnsureDir(p); !errors.Is(err, platform.ErrNotPrivate) {
			t.Fatalf("EnsureDir = %v", err)
		}
		if rec := ReadState(p); rec.Malformed == nil || !errors.Is(rec.Malformed, platform.ErrNotPrivate) {
			t.Fatalf("ReadState = %+v", rec)
		}
	})
	t.Run("bad paths", func(t *testing.T) {
		dir := t.TempDir()
		for _, p := range []ownership.Paths{
			ownership.PathsFor(dir, ""), ownership.PathsFor(dir, "."), ownership.PathsFor(dir, ".."), ownership.PathsFor(dir, "a/b"), ownership.PathsFor(dir, "../x"),
			{Dir: filepath.Join(dir, "sdk", "daemons", "bot"), State: "/etc/passwd"},
			{},
		} {
			if err := EnsureDir(p); !errors.Is(err, ownership.ErrBadPaths) {
				t.Errorf("EnsureDir(%+v) = %v", p, err)
			}
			if rec := ReadState(p); rec.Malformed == nil || !errors.Is(rec.Malformed, ownership.ErrBadPaths) {
				t.Errorf("ReadState(%+v) = %+v", p, rec)
			}
		}
		assertEmpty(t, dir)
	})
}

func TestReadStateAbsent(t *testing.T) {
	if rec := ReadState(ownership.PathsFor(filepath.Join(t.TempDir(), "missing"), "bot")); rec.Present {
		t.Fatalf("no agent dir: %+v", rec)
	}
	if rec := ReadState(newPaths(t)); rec.Present || rec.Malformed != nil {
		t.Fatalf("no state.json: %+v", rec)
	}
	if c := classifyNow(ownership.Record{}, desired, SystemProbe()); c.Class != ownership.ClassAbsent {
		t.Fatalf("Classify(absent) = %+v", c)
	}
}

func TestReasonOfErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{errors.New("disk full"), ownership.ReasonOperationFailed},
		{platform.ErrProcessGone, ownership.ReasonOwnerExited},
		{platform.ErrNotPrivate, ownership.ReasonUnsafeDirectory},
		{fmt.Errorf("reading: %w", platform.ErrIncarnationMismatch), ownership.ReasonPIDReused},
		{&ownership.HeldError{PID: 1}, ownership.ReasonOwnerHeld},
		{&ownership.HeldError{PID: 1, Released: true}, ownership.ReasonOwnerExiting},
		{&OwnerGoneError{PID: 1, Reused: true}, ownership.ReasonPIDReused},
		{&ownership.MalformedError{Path: "/x/owner.lock.reclaim"}, ownership.ReasonMalformedOwnerLock},
		{ownership.ErrNoIncarnation, ownership.ReasonNoIncarnation},
	} {
		if got := ownership.Reason(marked(tc.err)); got != tc.want {
			t.Errorf("Reason(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
