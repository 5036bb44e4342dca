package reconcile

import (
	"context"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/spec"
)

// Entries that alias a valid name's dir, leave the agent dir, or are just
// not DNS-1123 labels.
var badNames = []string{"x/../bot", "bot/", "../bot", "/bot", ".", "..", "", "Bot", "bot.x", strings.Repeat("b", 64)}

// errorLog records the error lines of a logger.
type errorLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *errorLog) logger() logr.Logger {
	return funcr.New(func(_, args string) {
		if strings.Contains(args, `"error"=`) {
			l.mu.Lock()
			l.lines = append(l.lines, args)
			l.mu.Unlock()
		}
	}, funcr.Options{})
}

// naming counts the error lines that name file and entry.
func (l *errorLog) naming(file, entry string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, `"file"="`+file+`"`) && strings.Contains(line, `"entry"="`+entry+`"`) {
			n++
		}
	}
	return n
}

func writeInventory(t *testing.T, agentDir string, names []string) {
	t.Helper()
	inv := &inventory{path: InventoryPath(agentDir)}
	if err := inv.write(names, nil); err != nil {
		t.Fatal(err)
	}
}

func problemEntries(ps []Problem, file string) []string {
	var out []string
	for _, p := range ps {
		if p.File == file {
			out = append(out, p.Entry)
		}
	}
	slices.Sort(out)
	return out
}

func sortedBad() []string { return slices.Sorted(slices.Values(badNames)) }

// The inventory reader lists valid names only, reports every other entry
// (logged at error level, naming the file and entry), and writes the bad
// entries back as they were when it adds a name: never acted on, not even
// dropped.
func TestInventoryIgnoresBadNames(t *testing.T) {
	agentDir := privateAgentDir(t)
	path := InventoryPath(agentDir)
	writeInventory(t, agentDir, append([]string{"bot", "a-1"}, badNames...))
	var log errorLog
	inv, err := loadInventory(path, log.logger())
	if err != nil {
		t.Fatal(err)
	}
	if got := inv.list(); !slices.Equal(got, []string{"a-1", "bot"}) {
		t.Errorf("list = %q, want the valid names only", got)
	}
	for _, n := range badNames {
		if inv.has(n) {
			t.Errorf("has(%q) = true", n)
		}
		if log.naming(path, n) != 1 {
			t.Errorf("entry %q not logged once at error level: %q", n, log.lines)
		}
	}
	if got := problemEntries(inv.problems(), path); !slices.Equal(got, sortedBad()) {
		t.Errorf("problems name %q, want %q", got, sortedBad())
	}

	if err := inv.add("c"); err != nil {
		t.Fatal(err)
	}
	again, err := loadInventory(path, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if got := again.list(); !slices.Equal(got, []string{"a-1", "bot", "c"}) {
		t.Errorf("after add: list = %q", got)
	}
	if got := problemEntries(again.problems(), path); !slices.Equal(got, sortedBad()) {
		t.Errorf("after add: problems name %q, want the bad entries kept", got)
	}
}

// status.json's entries with bad names are left out of what is read and
// reported as problems naming the file.
func TestReadStatusLeavesOutBadNames(t *testing.T) {
	agentDir := privateAgentDir(t)
	s := &Status{Version: 1, Daemons: []DaemonStatus{{Name: "bot", Phase: PhaseRunning}}}
	for _, n := range badNames {
		s.Daemons = append(s.Daemons, DaemonStatus{Name: n, Phase: PhaseRunning})
	}
	if err := writeStatus(agentDir, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadStatus(agentDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Daemons) != 1 || got.Daemons[0].Name != "bot" {
		t.Errorf("daemons read: %+v, want bot alone", got.Daemons)
	}
	if entries := problemEntries(got.Problems, StatusPath(agentDir)); !slices.Equal(entries, sortedBad()) {
		t.Errorf("problems name %q, want %q", entries, sortedBad())
	}
}

// startSleep is a live process the test can name in records.
func startSleep(t *testing.T) (pid int, incarnation string) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
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

// A held owner saved under a bad name is not held by the next reconciler
// (nor is any state kept for that name); the same owner under a valid name
// is, so the test can tell.
func TestSeedTrackedIgnoresBadNames(t *testing.T) {
	pid, inc := startSleep(t)
	boot, _ := platform.BootID() // without one, the file's time proves the boot
	for _, tc := range []struct {
		name string
		held bool
	}{{"bot", true}, {"x/../bot", false}, {"bot/", false}} {
		agentDir := privateAgentDir(t)
		s := &Status{Version: 1, ObservedAt: metav1.Now(), Daemons: []DaemonStatus{{Name: tc.name, Phase: PhaseRunning,
			TrackedOwner: &TrackedOwner{PID: pid, Incarnation: inc, OwnerID: "o-1", BootID: boot}}}}
		if err := writeStatus(agentDir, s); err != nil {
			t.Fatal(err)
		}
		var log errorLog
		r, err := New(Options{AgentDir: agentDir, Executable: "/bin/false", Log: log.logger(), Store: fsstore.New(agentDir, fsstore.Options{})})
		if err != nil {
			t.Fatal(err)
		}
		r.seedTracked()
		if got := r.trackedAlive("bot") != nil; got != tc.held {
			t.Errorf("%q: bot held = %v, want %v", tc.name, got, tc.held)
		}
		r.mu.Lock()
		_, kept := r.names[tc.name]
		r.mu.Unlock()
		if kept != tc.held {
			t.Errorf("%q: state kept for the name = %v, want %v", tc.name, kept, tc.held)
		}
		wantLogged, wantEntries := 1, []string{tc.name}
		if tc.held {
			wantLogged, wantEntries = 0, nil
		}
		if n := log.naming(StatusPath(agentDir), tc.name); n != wantLogged {
			t.Errorf("%q: logged %d times at error level, want %d", tc.name, n, wantLogged)
		}
		if got := problemEntries(r.takeProblems(), StatusPath(agentDir)); !slices.Equal(got, wantEntries) {
			t.Errorf("%q: problems name %q, want %q", tc.name, got, wantEntries)
		}
		r.Close()
	}
}

// The prune that aliasing made dangerous: the inventory names "x/../bot"
// and "bot/", no source declares anything, and bot's dir holds a record of
// a live process. A pass must signal nothing, report each entry, and not
// converge; bot itself was never in the inventory, so it is Unmanaged.
func TestPassNeverPrunesBadInventoryNames(t *testing.T) {
	agentDir := privateAgentDir(t)
	pid, inc := startSleep(t)
	paths := ownership.PathsFor(agentDir, "bot")
	if err := fsstore.EnsureDir(paths); err != nil {
		t.Fatal(err)
	}
	now, gen := time.Now().UnixMilli(), spec.Generation(1)
	st := ownership.State{Version: 1, Kind: "discord", PID: pid, OwnerID: "o-1", Identity: "0123456789abcdef",
		Incarnation: inc, StartedAt: now, HeartbeatAt: now + 60_000, TransportHealthy: true, Generation: gen.Opt()}
	if err := os.WriteFile(paths.State, st.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	writeInventory(t, agentDir, []string{"x/../bot", "bot/"})
	r, err := New(Options{AgentDir: agentDir, Executable: "/bin/false", Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := &spec.Result{}
	if names := r.Names(res); !slices.Equal(names, []string{"bot"}) {
		t.Errorf("names looked at: %q, want bot alone", names)
	}
	out := r.Pass(context.Background(), res)
	if alive, err := platform.Alive(pid); err != nil || !alive {
		t.Fatalf("the owner of bot's record was stopped (alive %v, %v)", alive, err)
	}
	if rec := fsstore.ReadState(paths); rec.State == nil || rec.State.StoppedAt != nil {
		t.Errorf("bot's record changed: %s", rec.Raw)
	}
	if _, err := os.Lstat(paths.Control); !os.IsNotExist(err) {
		t.Errorf("a control request was written for bot: %v", err)
	}
	if d, _ := statusOf(out.Status, "bot"); d.Phase != PhaseUnmanaged {
		t.Errorf("bot: %+v, want Unmanaged", d)
	}
	if out.Converged {
		t.Error("converged with bad inventory entries")
	}
	want := []string{"bot/", "x/../bot"}
	if got := problemEntries(out.Status.Problems, InventoryPath(agentDir)); !slices.Equal(got, want) {
		t.Errorf("problems name %q, want %q", got, want)
	}
	for _, n := range want {
		if !slices.ContainsFunc(out.Reasons, func(s string) bool { return strings.Contains(s, `"`+n+`"`) }) {
			t.Errorf("no reason names %q: %q", n, out.Reasons)
		}
	}
}

func statusOf(s *Status, name string) (DaemonStatus, bool) {
	for _, d := range s.Daemons {
		if d.Name == name {
			return d, true
		}
	}
	return DaemonStatus{}, false
}
