package fsstore

import (
	"errors"
	"gjc.dev/reconciler/pkg/ownership"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/platform"
)

// A live process whose incarnation matches is an owner only if its command
// line says it is this name's daemon running as this owner. Each way of
// not being one makes the record stale; one that cannot be read leaves it
// unverifiable, which touches nothing.
func TestClassifyProvesTheProcess(t *testing.T) {
	const pid, inc = 4242, "linux:98231"
	now := time.Now()
	rec := func() ownership.Record {
		s := stateOf(pid, inc)
		return ownership.Record{Present: true, State: &s, Paths: tablePaths}
	}
	daemonOf := func(c ownership.DaemonClaim) []string {
		return append([]string{"/usr/bin/reconciler"}, daemonproto.Args(c, 7)...)
	}
	other := tableClaim
	other.Name = "d1"
	otherOwner := tableClaim
	otherOwner.OwnerID = "4100-someone-else"
	otherDir := tableClaim
	otherDir.AgentDir = "/elsewhere"
	for _, tc := range []struct {
		name    string
		argv    []string
		argvErr error
		reason  string
		class   ownership.Class
		ambig   bool
	}{
		{"this daemon", daemonOf(tableClaim), nil, ownership.ReasonOwnerHealthy, ownership.ClassCompatible, false},
		{"inline flags", []string{"reconciler", "daemon", "--agent-dir=/agent", "--name=bot", "--owner-id=" + testOwnerID}, nil, ownership.ReasonOwnerHealthy, ownership.ClassCompatible, false},
		{"not a daemon", []string{"sleep", "300"}, nil, ownership.ReasonNotThisDaemon, ownership.ClassStopped, false},
		{"the loop", []string{"reconciler", "--agent-dir", "/agent"}, nil, ownership.ReasonNotThisDaemon, ownership.ClassStopped, false},
		{"empty: exiting, or a kernel thread", nil, nil, ownership.ReasonOwnerUnverifiable, ownership.ClassCompatible, true},
		{"another name's daemon", daemonOf(other), nil, ownership.ReasonNotThisDaemon, ownership.ClassStopped, false},
		{"another owner", daemonOf(otherOwner), nil, ownership.ReasonNotThisDaemon, ownership.ClassStopped, false},
		{"an agent dir that is gone (moved?)", daemonOf(otherDir), nil, ownership.ReasonOwnerUnverifiable, ownership.ClassCompatible, true},
		{"a relative agent dir", []string{"reconciler", "daemon", "--agent-dir", "agent", "--name", "bot", "--owner-id", testOwnerID}, nil, ownership.ReasonOwnerUnverifiable, ownership.ClassCompatible, true},
		{"the reference's daemon", []string{"/usr/bin/node", "/opt/gjc/cli.js", "daemon", "bot-internal", "--owner-id", testOwnerID, "--agent-dir", "/agent"}, nil, ownership.ReasonOwnerHealthy, ownership.ClassCompatible, false},
		{"the reference's daemon, another owner", []string{"node", "daemon", "bot-internal", "--owner-id", "x", "--agent-dir", "/agent"}, nil, ownership.ReasonNotThisDaemon, ownership.ClassStopped, false},
		{"the reference's daemon of another kind", []string{"node", "daemon", "slack-internal", "--owner-id", testOwnerID, "--agent-dir", "/agent"}, nil, ownership.ReasonNotThisDaemon, ownership.ClassStopped, false},
		{"this owner in an unknown form", []string{"gjc", "serve", "--owner-id", testOwnerID}, nil, ownership.ReasonOwnerUnverifiable, ownership.ClassCompatible, true},
		{"flag twice, naming this owner", append(daemonOf(tableClaim), "--name", "bot"), nil, ownership.ReasonOwnerUnverifiable, ownership.ClassCompatible, true},
		{"flag twice", append(daemonOf(otherOwner), "--name", "bot"), nil, ownership.ReasonNotThisDaemon, ownership.ClassStopped, false},
		{"too long", nil, platform.ErrArgvTooLong, ownership.ReasonOwnerUnverifiable, ownership.ClassCompatible, true},
		{"unreadable", nil, os.ErrPermission, ownership.ReasonOwnerUnverifiable, ownership.ClassCompatible, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probe := &fakeProbe{alive: map[int]bool{pid: true}, inc: map[int]string{pid: inc}, now: now,
				argv: map[int][]string{pid: tc.argv}, argvErr: map[int]error{pid: tc.argvErr}}
			c := classifyNow(rec(), desired, probe)
			if c.Class != tc.class || c.Reason != tc.reason || c.AmbiguouslyLive != tc.ambig || c.Signalable != (tc.reason == ownership.ReasonOwnerHealthy) {
				t.Fatalf("Classify = %+v", c)
			}
		})
	}
	t.Run("another agent dir that exists", func(t *testing.T) {
		mine, theirs := ownership.PathsFor(t.TempDir(), "bot"), ownership.PathsFor(t.TempDir(), "bot")
		probe := &fakeProbe{alive: map[int]bool{pid: true}, inc: map[int]string{pid: inc}, now: now, claim: ownership.ClaimOf(theirs, testOwnerID)}
		r := rec()
		r.Paths = mine
		if c := classifyNow(r, desired, probe); c.Class != ownership.ClassStopped || c.Reason != ownership.ReasonNotThisDaemon {
			t.Fatalf("Classify = %+v", c)
		}
		probe.claim = ownership.ClaimOf(mine, testOwnerID)
		if c := classifyNow(r, desired, probe); c.Reason != ownership.ReasonOwnerHealthy {
			t.Fatalf("Classify of its own daemon = %+v", c)
		}
	})
	t.Run("a record without paths proves nothing", func(t *testing.T) {
		probe := &fakeProbe{alive: map[int]bool{pid: true}, inc: map[int]string{pid: inc}, now: now}
		r := rec()
		r.Paths = ownership.Paths{}
		if c := classifyNow(r, desired, probe); c.Signalable || !c.AmbiguouslyLive || c.Reason != ownership.ReasonOwnerUnverifiable {
			t.Fatalf("Classify = %+v", c)
		}
	})
}

// An operator copies d1's dir to set up d3 while d1's daemon runs. For d3
// the copied record and lock name a live process that is d1's daemon, not
// d3's: stale, never signalled, and d3's daemon may take the name.
func TestCopiedDaemonDirIsNotItsOwner(t *testing.T) {
	agentDir := t.TempDir()
	d1, d3 := ownership.PathsFor(agentDir, "d1"), ownership.PathsFor(agentDir, "d3")
	c := startCanaryAs(t, ownership.ClaimOf(d1, testOwnerID))
	if err := EnsureDir(d1); err != nil {
		t.Fatal(err)
	}
	s := stateOf(c.PID(), c.incarnation)
	writeState(t, d1, s)
	writeLock(t, d1.Lock, c.PID(), c.incarnation)
	if out, err := exec.Command("cp", "-a", d1.Dir, d3.Dir).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v: %s", err, out)
	}

	if cl := classifyNow(ReadState(d1), desired, SystemProbe()); cl.Class != ownership.ClassCompatible || !cl.Signalable {
		t.Fatalf("d1's own record: %+v", cl)
	}
	cl := classifyNow(ReadState(d3), desired, SystemProbe())
	if cl.Class != ownership.ClassStopped || cl.Reason != ownership.ReasonNotThisDaemon || cl.Signalable || cl.AmbiguouslyLive {
		t.Fatalf("d3's copied record: %+v", cl)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		err := SignalOwner(d3, &desired, s, sig, SystemProbe())
		var gone *OwnerGoneError
		if !errors.As(err, &gone) || !gone.NotDaemon || ownership.Reason(err) != ownership.ReasonNotThisDaemon {
			t.Fatalf("SignalOwner(d3, %v) = %v, want a not-this-daemon refusal", sig, err)
		}
	}
	o, err := Acquire(d3, ownership.AcquireRequest{Kind: "discord", OwnerID: "d3-owner", Identity: testIdentity, Generation: 7})
	if err != nil {
		t.Fatalf("Acquire d3 over d1's copied record and lock: %v", err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	if err := o.Release(nil); err != nil {
		t.Fatal(err)
	}
	c.assertUntouched(t)
	// d1 is untouched: still its own owner.
	if cl := classifyNow(ReadState(d1), desired, SystemProbe()); cl.Class != ownership.ClassCompatible || !cl.Signalable {
		t.Fatalf("d1 after d3's takeover: %+v", cl)
	}
}

// A record naming any other live process of the user (a canary that is no
// daemon, this test process, PID 1) is stale and gets no signal: the
// refusal comes before any signal is sent.
func TestRecordNamingAnyProcessIsNeverSignalled(t *testing.T) {
	t.Run("a process of the user", func(t *testing.T) {
		h := startHelper(t, "canary") // no daemon's command line
		if got := h.Recv(t); got != "ready" {
			t.Fatalf("canary: %q", got)
		}
		c := &canary{helper: h, incarnation: incarnationOf(t, h.PID())}
		p := newPaths(t)
		s := stateOf(c.PID(), c.incarnation)
		writeState(t, p, s)
		writeLock(t, p.Lock, c.PID(), c.incarnation)
		if cl := classifyNow(ReadState(p), desired, SystemProbe()); cl.Reason != ownership.ReasonNotThisDaemon || cl.Signalable {
			t.Fatalf("Classify = %+v", cl)
		}
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGKILL} {
			if err := SignalOwner(p, &desired, s, sig, SystemProbe()); ownership.Reason(err) != ownership.ReasonNotThisDaemon {
				t.Fatalf("SignalOwner(%v) = %v", sig, err)
			}
		}
		c.assertUntouched(t)
		o, err := Acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: "successor", Identity: testIdentity, Generation: 7})
		if err != nil {
			t.Fatalf("Acquire over a record naming a non-daemon: %v", err)
		}
		t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
		_ = o.Release(nil)
		c.assertUntouched(t)
	})
	t.Run("this test process", func(t *testing.T) {
		got := make(chan os.Signal, 1)
		signal.Notify(got, syscall.SIGUSR2)
		defer signal.Stop(got)
		p := newPaths(t)
		s := stateOf(os.Getpid(), incarnationOf(t, os.Getpid()))
		writeState(t, p, s)
		if err := SignalOwner(p, &desired, s, syscall.SIGUSR2, SystemProbe()); ownership.Reason(err) != ownership.ReasonNotThisDaemon {
			t.Fatalf("SignalOwner(self) = %v", err)
		}
		// Any signal sent would be pending now; a marker sent after it
		// arrives after it.
		signal.Notify(got, syscall.SIGWINCH)
		_ = syscall.Kill(os.Getpid(), syscall.SIGWINCH)
		if sig := <-got; sig != syscall.SIGWINCH {
			t.Fatalf("this process received %v", sig)
		}
	})
	t.Run("PID 1", func(t *testing.T) {
		inc, err := platform.Incarnation(1)
		if err != nil {
			t.Fatalf("Incarnation(1): %v", err)
		}
		p := newPaths(t)
		s := stateOf(1, inc)
		writeState(t, p, s)
		// OpenOwner is every check SignalOwner makes before it signals;
		// nothing is sent to init, whatever the outcome.
		proc, err := OpenOwner(p, &desired, s, SystemProbe())
		if err == nil {
			proc.Close()
			t.Fatal("OpenOwner(PID 1) succeeded: init would be signalled")
		}
		if ownership.Reason(err) != ownership.ReasonNotThisDaemon {
			t.Fatalf("OpenOwner(PID 1) = %v", err)
		}
	})
}

// The name lock outlives every file: with sdk/ removed under a live owner,
// a second Acquire is refused, naming the holder the kernel reports.
func TestNameLockSurvivesRemovedState(t *testing.T) {
	agentDir := t.TempDir()
	p := ownership.PathsFor(agentDir, "bot")
	h := startAcquirer(t, agentDir, "bot", "first")
	h.Send(t, "acquire")
	if got := h.Recv(t); got != "won" {
		t.Fatalf("acquirer: %s", got)
	}
	if err := os.RemoveAll(filepath.Join(agentDir, "sdk")); err != nil {
		t.Fatal(err)
	}
	holder, err := NameLockHolder(p)
	if err != nil || holder == nil || holder.PID != h.PID() || holder.OtherUser {
		t.Fatalf("NameLockHolder = %v, %v; want pid %d", holder, err, h.PID())
	}
	_, err = Acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: "second", Identity: testIdentity, Generation: 7})
	var heldErr *ownership.HeldError
	if !errors.As(err, &heldErr) || heldErr.PID != h.PID() || heldErr.Source != ownership.NameLockFile || ownership.Reason(err) != ownership.ReasonOwnerHeld {
		t.Fatalf("Acquire beside a live owner whose files are gone = %v", err)
	}
	if _, err := os.Lstat(filepath.Join(agentDir, "sdk")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused Acquire created files: %v", err)
	}
	// Its holder killed, the name is free at once.
	_ = h.Cmd.Process.Kill()
	_ = h.Cmd.Wait()
	if holder, err := NameLockHolder(p); holder != nil || err != nil {
		t.Fatalf("after kill -9: %v, %v", holder, err)
	}
	o, err := Acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: "second", Identity: testIdentity, Generation: 7})
	if err != nil {
		t.Fatalf("Acquire after the holder died: %v", err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	_ = o.Release(nil)
}

// A heartbeat from far ahead is not fresh: the owner is hung, and the
// message says why.
func TestHeartbeatFromTheFutureIsHung(t *testing.T) {
	const pid, inc = 4242, "linux:98231"
	now := time.Now()
	s := stateOf(pid, inc)
	s.HeartbeatAt = now.Add(365 * 24 * time.Hour).UnixMilli()
	probe := &fakeProbe{alive: map[int]bool{pid: true}, inc: map[int]string{pid: inc}, now: now}
	c := classifyNow(ownership.Record{Present: true, State: &s, Paths: tablePaths}, desired, probe)
	if c.Health != ownership.HealthHung || c.Reason != ownership.ReasonOwnerHung || !strings.Contains(c.Message, "in the future") {
		t.Fatalf("Classify = %+v", c)
	}
}

// A live daemon of the reference system (`... daemon <kind>-internal
// --owner-id O --agent-dir D`, in sdk/daemons/<kind>) takes no name lock:
// the files must keep fencing it, so its record and lock prove an owner
// and no successor may take over.
func TestReferenceDaemonStaysFenced(t *testing.T) {
	agentDir := t.TempDir()
	p := ownership.PathsFor(agentDir, "discord")
	h := startHelper(t, "canary", "daemon", "discord-internal", "--owner-id", testOwnerID, "--agent-dir", agentDir)
	if got := h.Recv(t); got != "ready" {
		t.Fatalf("canary: %q", got)
	}
	c := &canary{helper: h, incarnation: incarnationOf(t, h.PID())}
	if err := EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	writeState(t, p, stateOf(c.PID(), c.incarnation))
	writeLock(t, p.Lock, c.PID(), c.incarnation)
	if cl := classifyNow(ReadState(p), desired, SystemProbe()); cl.Class != ownership.ClassCompatible || !cl.Signalable {
		t.Fatalf("Classify of the reference's live daemon = %+v", cl)
	}
	before := snap(t, p.Dir)
	_, err := Acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: "successor", Identity: testIdentity, Generation: 7})
	var held *ownership.HeldError
	if !errors.As(err, &held) || held.PID != c.PID() {
		t.Fatalf("Acquire beside the reference's live daemon = %v, want HeldError naming %d", err, c.PID())
	}
	assertSame(t, before, p.Dir, "a refused Acquire")
	c.assertUntouched(t)
}

// The name lock follows the agent dir however it is named or moved under a
// live daemon: by its path as written (a symlink retargeted), and by its
// inode (another spelling of it, or the dir moved).
func TestNameLockFollowsTheAgentDir(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup returns the agent dir the live daemon uses and, after
		// change runs, the one a second daemon uses.
		setup func(t *testing.T, root string) (first string, change func() string)
	}{
		{"another spelling (a symlink to it)", func(t *testing.T, root string) (string, func() string) {
			real := filepath.Join(root, "agent")
			mustMkdir(t, real)
			link := filepath.Join(root, "link")
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			return link, func() string { return real }
		}},
		{"moved", func(t *testing.T, root string) (string, func() string) {
			a := filepath.Join(root, "a")
			mustMkdir(t, a)
			return a, func() string {
				b := filepath.Join(root, "b")
				if err := os.Rename(a, b); err != nil {
					t.Fatal(err)
				}
				return b
			}
		}},
		{"restored, reached through a link", func(t *testing.T, root string) (string, func() string) {
			dir := filepath.Join(root, "agent")
			mustMkdir(t, dir)
			return dir, func() string {
				// The old dir moved aside (so its inode stays in use), a
				// restored copy in its place: another inode.
				if err := os.Rename(dir, dir+".old"); err != nil {
					t.Fatal(err)
				}
				mustMkdir(t, dir)
				link := filepath.Join(root, "link")
				if err := os.Symlink(dir, link); err != nil {
					t.Fatal(err)
				}
				return link
			}
		}},
		{"a symlink retargeted", func(t *testing.T, root string) (string, func() string) {
			v1, v2 := filepath.Join(root, "v1"), filepath.Join(root, "v2")
			mustMkdir(t, v1)
			mustMkdir(t, v2)
			cur := filepath.Join(root, "current")
			if err := os.Symlink(v1, cur); err != nil {
				t.Fatal(err)
			}
			return cur, func() string {
				tmp := filepath.Join(root, "current.new")
				if err := os.Symlink(v2, tmp); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, cur); err != nil {
					t.Fatal(err)
				}
				return cur
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, change := tc.setup(t, t.TempDir())
			h := startAcquirer(t, first, "bot", "first")
			h.Send(t, "acquire")
			if got := h.Recv(t); got != "won" {
				t.Fatalf("acquirer: %s", got)
			}
			second := ownership.PathsFor(change(), "bot")
			if holder, err := NameLockHolder(second); err != nil || holder == nil || holder.PID != h.PID() {
				t.Fatalf("NameLockHolder(%s) = %v, %v; want pid %d", second.Dir, holder, err, h.PID())
			}
			_, err := acquire(second, ownership.AcquireRequest{Kind: "discord", OwnerID: "second", Identity: testIdentity, Generation: 7}, SystemProbe(), defaultEnv())
			var held *ownership.HeldError
			if !errors.As(err, &held) || held.PID != h.PID() || held.Source != ownership.NameLockFile {
				t.Fatalf("Acquire beside the live daemon = %v, want the name lock held by %d", err, h.PID())
			}
		})
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

// A lock names no owner: a daemon-like command line in no known form may
// be its creator's, so it is not proof of another process.
func TestLockClaimUnknownDaemonFormIsUnproven(t *testing.T) {
	c := ownership.ClaimOf(tablePaths, "")
	err := VerifyDaemonArgv(4242, []string{"node", "cli.js", "daemon", "--agent-dir", "/agent"}, c)
	var unproven *ownership.UnprovenDaemonError
	if !errors.As(err, &unproven) {
		t.Fatalf("VerifyDaemonArgv = %v, want unproven", err)
	}
	if err := VerifyDaemonArgv(4242, []string{"vim", "notes.txt"}, c); ownership.Reason(err) != ownership.ReasonNotThisDaemon {
		t.Fatalf("VerifyDaemonArgv(vim) = %v, want not this daemon", err)
	}
}
