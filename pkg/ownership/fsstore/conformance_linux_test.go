package fsstore_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/ownership/ownershiptest"
)

// The one-machine store passes the conformance suite with real processes:
// owners are helpers that acquire ownership as a daemon does, under a
// daemon's command line; bystanders are helpers that are no daemon.
// Linux only: a helper's report relies on Linux delivering pending signals
// lowest number first (see markerSignal).
func TestConformance(t *testing.T) {
	ownershiptest.Run(t, ownershiptest.Harness{New: newWorld})
}

// world is one agent dir and the processes started for it.
type world struct {
	agentDir string
	probe    *hidingProbe
}

func newWorld(t *testing.T) ownershiptest.World {
	return &world{agentDir: t.TempDir(), probe: &hidingProbe{Probe: fsstore.SystemProbe()}}
}

func (w *world) paths(name string) ownership.Paths { return ownership.PathsFor(w.agentDir, name) }

func (w *world) Store() ownership.Store {
	return fsstore.New(w.agentDir, fsstore.Options{Probe: w.probe, Log: logr.Discard()})
}

func (w *world) Acquirer(*testing.T) ownership.Acquirer {
	return fsstore.New(w.agentDir, fsstore.Options{Probe: w.probe, Log: logr.Discard()})
}

func (w *world) RequestStop(t *testing.T, name string, s ownership.State) {
	t.Helper()
	if err := fsstore.WriteControl(w.paths(name), ownership.NewControlRequest(ownership.ActionStop, s, time.Now())); err != nil {
		t.Fatal(err)
	}
}

func (w *world) StartOwner(t *testing.T, name string, want ownership.Desired, opts ownershiptest.OwnerOptions) ownershiptest.Owner {
	t.Helper()
	p := w.paths(name)
	ownerID := fsstore.NewOwnerID()
	env := []string{kindEnv + "=" + want.Kind, identityEnv + "=" + want.Identity}
	if opts.Stubborn {
		env = append(env, stubbornEnv+"=1")
	}
	h := startProc(t, "owner", env, daemonproto.Args(ownership.ClaimOf(p, ownerID), want.Generation)...)
	rec := fsstore.ReadState(p)
	if rec.State == nil || rec.State.OwnerID != ownerID || rec.State.PID != h.PID() {
		t.Fatalf("owner %s (pid %d) said ready, but the record is %+v", ownerID, h.PID(), rec)
	}
	return &owner{proc: h, record: *rec.State}
}

func (w *world) StartBystander(t *testing.T) ownershiptest.Bystander {
	t.Helper()
	return bystander{startProc(t, "bystander", nil)}
}

func (w *world) WriteRecord(t *testing.T, name string, s ownership.State) {
	t.Helper()
	w.write(t, name, w.paths(name).State, s.Marshal())
}

func (w *world) CorruptRecord(t *testing.T, name string) {
	t.Helper()
	w.write(t, name, w.paths(name).State, []byte(`{"version":1,"kind":"discord","pid":`))
}

func (w *world) CorruptLock(t *testing.T, name string) {
	t.Helper()
	w.write(t, name, w.paths(name).Lock, []byte("not a lock\n"))
}

// write replaces path whole, as every writer of the contract does.
func (w *world) write(t *testing.T, name, path string, data []byte) {
	t.Helper()
	if err := fsstore.EnsureDir(w.paths(name)); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, data); err != nil {
		t.Fatal(err)
	}
}

// RemoveRecord removes the daemon's whole directory; the owner's kernel-held
// name lock stays with its process.
func (w *world) RemoveRecord(t *testing.T, name string) {
	t.Helper()
	if err := os.RemoveAll(w.paths(name).Dir); err != nil {
		t.Fatal(err)
	}
}

func (w *world) HideLiveness(t *testing.T, p ownershiptest.Process) { w.probe.hide(p.PID()) }

// Fingerprint lists every file of the daemon's directory with its mode,
// inode and content: a rewrite shows even when it writes the same bytes.
func (w *world) Fingerprint(t *testing.T, name string) string {
	t.Helper()
	dir := w.paths(name).Dir
	var entries []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		e := fmt.Sprintf("%s mode=%v ino=%d", rel, fi.Mode(), fi.Sys().(*syscall.Stat_t).Ino)
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			e += " data=" + strconv.Quote(string(data))
		}
		entries = append(entries, e)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	sort.Strings(entries)
	return strings.Join(entries, "; ")
}

// hidingProbe is the system's probe, except that the liveness of hidden
// PIDs cannot be read: what a process of another user behind hidepid, or
// an unreadable /proc, looks like.
type hidingProbe struct {
	fsstore.Probe
	mu     sync.Mutex
	hidden map[int]bool
}

func (p *hidingProbe) hide(pid int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hidden == nil {
		p.hidden = map[int]bool{}
	}
	p.hidden[pid] = true
}

func (p *hidingProbe) isHidden(pid int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hidden[pid]
}

func (p *hidingProbe) Observe(pid int) (bool, string, error) {
	if p.isHidden(pid) {
		return false, "", fmt.Errorf("liveness of pid %d: %w", pid, os.ErrPermission)
	}
	return p.Probe.Observe(pid)
}

func (p *hidingProbe) Argv(pid int, incarnation string) ([]string, error) {
	if p.isHidden(pid) {
		return nil, fmt.Errorf("command line of pid %d: %w", pid, os.ErrPermission)
	}
	return p.Probe.Argv(pid, incarnation)
}
