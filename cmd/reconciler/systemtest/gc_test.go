package systemtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/gc"
	"gjc.dev/reconciler/pkg/platform"
)

const nobody = 65534

// gcWorld is a fixture agent dir with each kind of leftover and each kind of
// keeper. Run as root, gc runs as nobody so that a root process is EPERM to it.
type gcWorld struct {
	t        *testing.T
	agentDir string
	uid      int
	stale    []string // paths gc must remove
	keep     map[string]string
}

func newGCWorld(t *testing.T) *gcWorld {
	base, err := os.MkdirTemp("", "gc-world-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	w := &gcWorld{t: t, agentDir: filepath.Join(base, "agent"), uid: os.Getuid(), keep: map[string]string{}}
	if w.uid == 0 {
		w.uid = nobody
	}
	return w
}

func (w *gcWorld) file(name, base, content string, age time.Duration) string {
	w.t.Helper()
	dir := filepath.Join(w.agentDir, "sdk", "daemons", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	p := filepath.Join(dir, base)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		w.t.Fatal(err)
	}
	if age > 0 {
		old := time.Now().Add(-age)
		if err := os.Chtimes(p, old, old); err != nil {
			w.t.Fatal(err)
		}
	}
	return p
}

func lockJSON(pid int, inc string) string {
	return fmt.Sprintf(`{"pid":%d,"incarnation":%q,"createdAt":%d}`+"\n", pid, inc, time.Now().UnixMilli())
}

func stateJSON(pid int, inc string, stopped bool) string {
	s := fmt.Sprintf(`{"version":1,"kind":"discord","pid":%d,"ownerId":"o","identity":"i","incarnation":%q,"startedAt":1,"heartbeatAt":1,"transportHealthy":false,"generation":1`, pid, inc)
	if stopped {
		s += `,"stoppedAt":2`
	}
	return s + "}\n"
}

// proc starts a sleep as uid and returns its pid and incarnation.
func proc(t *testing.T, uid int) (int, string) {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	if uid != os.Getuid() {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	inc, err := platform.Incarnation(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, inc
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) (int, string) {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, "linux:1"
}

func (w *gcWorld) build() {
	t := w.t
	dead, deadInc := deadPID(t)
	livePID, liveInc := proc(t, w.uid)
	hour := time.Hour
	// Leftovers of a daemon that died and that nothing manages any more.
	w.stale = append(w.stale,
		w.file("gone", "owner.lock", lockJSON(dead, deadInc), 0),
		w.file("gone", "owner.lock.reclaim", lockJSON(dead, deadInc), 0),
		w.file("gone", "state.json", stateJSON(dead, deadInc, true), 0),
		w.file("gone", "control.json", fmt.Sprintf(`{"version":1,"requestId":"r","action":"stop","ownerId":"o","pid":%d,"incarnation":"linux:1","createdAt":1}`+"\n", dead), 0),
		w.file("gone", ".state.json.tmp-0123456789abcdef", "partial", hour),
		w.file("gone", ".owner.lock.quarantine-fedcba9876543210", lockJSON(dead, deadInc), hour),
		w.file("gone", "daemon-2026-01-01T00-00-00.000.log", "old log\n", hour),
		w.file("gone", "state.json.4242.0b6f1c3e-1d2a-4c5b-9e8f-7a6b5c4d3e2f.tmp", "partial", hour),
	)
	// A lock wedged by a creator that died between link(2) and removing its
	// temp name: the temp name goes, the lock (now one link) is reclaimable.
	wedged := w.file("wedged", ".owner.lock.tmp-aaaaaaaaaaaaaaaa", lockJSON(dead, deadInc), hour)
	if err := os.Link(wedged, filepath.Join(filepath.Dir(wedged), "owner.lock")); err != nil {
		t.Fatal(err)
	}
	w.stale = append(w.stale, wedged)
	// Keepers: a live owner, a reused... no: a live process not ours (EPERM),
	// an unverifiable incarnation, a fresh temp file, a managed stopped record.
	w.keep[w.file("live", "owner.lock", lockJSON(livePID, liveInc), 0)] = gc.KeepAlive
	w.keep[w.file("live", "state.json", stateJSON(livePID, liveInc, false), 0)] = gc.KeepAlive
	w.keep[w.file("unverifiable", "owner.lock", lockJSON(livePID, "unavailable"), 0)] = gc.KeepUnverifiable
	w.keep[w.file("gone", ".control.json.tmp-00112233445566aa", "partial", 0)] = gc.KeepRecent
	w.keep[w.file("managed", "state.json", stateJSON(dead, deadInc, true), 0)] = gc.KeepManaged
	if os.Getuid() == 0 {
		rootPID, rootInc := proc(t, 0)
		w.keep[w.file("eperm", "owner.lock", lockJSON(rootPID, rootInc), 0)] = gc.KeepEPERM
	}
	if err := os.MkdirAll(filepath.Join(w.agentDir, "sdk", "reconciler"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.agentDir, "sdk", "reconciler", "inventory.json"), []byte(`{"version":1,"names":["managed"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A valid spec that declares nothing: names are judged by records alone.
	if err := os.WriteFile(filepath.Join(w.agentDir, "daemons.yaml"), []byte("# no daemons\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if w.uid != os.Getuid() {
		_ = filepath.Walk(w.agentDir, func(p string, _ os.FileInfo, err error) error {
			if err == nil {
				err = os.Lchown(p, w.uid, w.uid)
			}
			return err
		})
	}
}

func (w *gcWorld) run(args ...string) (result, gc.Report) {
	w.t.Helper()
	cmd := exec.Command(binary, append([]string{"gc", "-o", "json", "--agent-dir", w.agentDir, "--spec", filepath.Join(w.agentDir, "daemons.yaml")}, args...)...)
	if w.uid != os.Getuid() {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(w.uid), Gid: uint32(w.uid)}}
	}
	cmd.Env = append(os.Environ(), "HOME=/")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	var rep gc.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		w.t.Fatalf("gc output: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	return result{code, stdout.String(), stderr.String()}, rep
}

func TestGC(t *testing.T) {
	t.Parallel()
	w := newGCWorld(t)
	w.build()
	if os.Getuid() != 0 {
		t.Log("not root: the EPERM keeper needs a process of another user, so it is not in this fixture")
	}
	before := map[string][]byte{}
	for _, p := range append(append([]string{}, w.stale...), keys2(w.keep)...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		before[p] = data
	}

	// Dry run: lists everything, removes nothing.
	r, rep := w.run()
	if r.code != 0 {
		t.Fatalf("gc: exit %d %s", r.code, r.stderr)
	}
	w.check(rep, "would remove")
	for p, data := range before {
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, data) {
			t.Errorf("dry run touched %s", p)
		}
	}

	// --prune removes exactly the stale ones.
	r, rep = w.run("--prune")
	if r.code != 0 {
		t.Fatalf("gc --prune: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	w.check(rep, "removed")
	for _, p := range w.stale {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale %s survived --prune", p)
		}
	}
	for p, data := range before {
		if _, ok := w.keep[p]; ok {
			if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, data) {
				t.Errorf("keeper %s changed by --prune", p)
			}
		}
	}
}

// check: every stale path has the action, every keeper is kept for its reason,
// and the summary adds up.
func (w *gcWorld) check(rep gc.Report, action string) {
	t := w.t
	t.Helper()
	byPath := map[string]gc.Item{}
	for _, it := range rep.Items {
		byPath[it.Path] = it
	}
	for _, p := range w.stale {
		if it := byPath[p]; it.Action != action || !it.Stale {
			t.Errorf("%s: %+v, want %q", p, it, action)
		}
	}
	for p, reason := range w.keep {
		if it := byPath[p]; it.Action != "keep" || !strings.HasPrefix(it.Reason, reason) {
			t.Errorf("%s: %+v, want kept: %s", p, it, reason)
		}
	}
	s := rep.Summary
	if s.Stale != len(w.stale) || s.Discovered != s.Stale+s.Kept {
		t.Errorf("summary %+v for %d stale, %d keepers", s, len(w.stale), len(w.keep))
	}
}

func keys2(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// An inventory entry that is not a valid name may be a damaged form of any
// name: gc --prune then keeps every record, as for an invalid spec, and
// logs the entry at error level.
func TestGCKeepsRecordsBesideBadInventoryNames(t *testing.T) {
	t.Parallel()
	w := newGCWorld(t)
	dead, deadInc := deadPID(t)
	record := w.file("gone", "state.json", stateJSON(dead, deadInc, true), 0)
	inv := filepath.Join(w.agentDir, "sdk", "reconciler", "inventory.json")
	if err := os.MkdirAll(filepath.Dir(inv), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inv, []byte(`{"version":1,"names":["x/../gone"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.agentDir, "daemons.yaml"), []byte("# no daemons\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if w.uid != os.Getuid() {
		_ = filepath.Walk(w.agentDir, func(p string, _ os.FileInfo, err error) error {
			if err == nil {
				err = os.Lchown(p, w.uid, w.uid)
			}
			return err
		})
	}
	r, rep := w.run("--prune")
	if r.code != 0 {
		t.Fatalf("gc --prune: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Lstat(record); err != nil {
		t.Errorf("the record was removed beside a damaged inventory: %v (%+v)", err, rep.Items)
	}
	if !strings.Contains(r.stderr, `"level":"error"`) || !strings.Contains(r.stderr, `"entry":"x/../gone"`) {
		t.Errorf("the bad entry was not logged at error level:\n%s", r.stderr)
	}
}

// gc on an agent dir where no pass has ever run (no sdk/reconciler, no
// lock), holding only what a reference controller left, lists it and
// prunes it, instead of failing on the missing lock.
func TestGCOnAFreshAgentDir(t *testing.T) {
	t.Parallel()
	agentDir := t.TempDir()
	dir := filepath.Join(agentDir, "sdk", "daemons", "old")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "owner.lock")
	if err := os.WriteFile(lock, []byte(`{"pid":999999999,"incarnation":"linux:1","createdAt":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "RECONCILER_AGENT_DIR="+agentDir)
	r := runBinary(t, env, "gc", "--agent-dir", agentDir)
	if r.code != 0 || !strings.Contains(r.stdout, "would remove owner-lock") {
		t.Fatalf("gc on a fresh dir: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, env, "gc", "--prune", "--agent-dir", agentDir)
	if r.code != 0 {
		t.Fatalf("gc --prune on a fresh dir: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Lstat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the reference's stale lock is still there: %v", err)
	}
}
