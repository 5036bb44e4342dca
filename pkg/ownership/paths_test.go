package ownership

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gjc.dev/reconciler/pkg/platform"
)

func TestPathsFor(t *testing.T) {
	p := PathsFor("/agent", "discord")
	want := Paths{
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
	p := PathsFor(agentDir, "bot")
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
		p := PathsFor(t.TempDir(), "bot")
		if err := os.MkdirAll(filepath.Join(filepath.Dir(p.Dir)), 0o700); err != nil {
			t.Fatal(err)
		}
		sdk := filepath.Dir(filepath.Dir(p.Dir))
		if err := os.Chmod(sdk, 0o775); err != nil {
			t.Fatal(err)
		}
		if err := EnsureDir(p); !errors.Is(err, platform.ErrNotPrivate) || Reason(err) != ReasonUnsafeDirectory {
			t.Fatalf("EnsureDir = %v", err)
		}
		if _, err := os.Lstat(p.Dir); !os.IsNotExist(err) {
			t.Fatal("created inside a refused level")
		}
	})
	t.Run("symlinked daemon dir", func(t *testing.T) {
		p := PathsFor(t.TempDir(), "bot")
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
		for _, p := range []Paths{
			PathsFor(dir, ""), PathsFor(dir, "."), PathsFor(dir, ".."), PathsFor(dir, "a/b"), PathsFor(dir, "../x"),
			{Dir: filepath.Join(dir, "sdk", "daemons", "bot"), State: "/etc/passwd"},
			{},
		} {
			if err := EnsureDir(p); !errors.Is(err, ErrBadPaths) {
				t.Errorf("EnsureDir(%+v) = %v", p, err)
			}
			if rec := ReadState(p); rec.Malformed == nil || !errors.Is(rec.Malformed, ErrBadPaths) {
				t.Errorf("ReadState(%+v) = %+v", p, rec)
			}
		}
		assertEmpty(t, dir)
	})
}

func TestReadStateAbsent(t *testing.T) {
	if rec := ReadState(PathsFor(filepath.Join(t.TempDir(), "missing"), "bot")); rec.Present {
		t.Fatalf("no agent dir: %+v", rec)
	}
	if rec := ReadState(newPaths(t)); rec.Present || rec.Malformed != nil {
		t.Fatalf("no state.json: %+v", rec)
	}
	if c := classifyNow(Record{}, desired, SystemProbe()); c.Class != ClassAbsent {
		t.Fatalf("Classify(absent) = %+v", c)
	}
}

func TestReasonOfErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{errors.New("disk full"), ReasonOperationFailed},
		{platform.ErrProcessGone, ReasonOwnerExited},
		{&HeldError{PID: 1}, ReasonOwnerHeld},
		{&HeldError{PID: 1, Released: true}, ReasonOwnerExiting},
		{&OwnerGoneError{PID: 1, Reused: true}, ReasonPIDReused},
		{&MalformedError{Path: "/x/owner.lock.reclaim"}, ReasonMalformedOwnerLock},
		{ErrNoIncarnation, ReasonNoIncarnation},
	} {
		if got := Reason(tc.err); got != tc.want {
			t.Errorf("Reason(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
