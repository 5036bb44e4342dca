package fsstore

import (
	"bufio"
	"errors"
	"fmt"
	"gjc.dev/reconciler/internal/helperproc"
	"gjc.dev/reconciler/pkg/ownership"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/spec"
)

// The test binary doubles as the helper processes the tests need: run with
// helperEnv set, TestMain runs that helper instead of the tests.
const helperEnv = "OWNERSHIP_TEST_HELPER"

// ioTimeout bounds every wait on a helper, so a stuck helper fails the test
// instead of hanging it.
const ioTimeout = helperproc.Timeout

// markerSignal is a real-time signal the canary sends itself to flush its
// report: Linux delivers pending signals lowest number first, so every
// watched signal sent before it is seen before it.
const markerSignal = syscall.Signal(42)

// watchedSignals are the signals a canary records.
var watchedSignals = []os.Signal{
	syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGCONT, syscall.SIGWINCH,
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

func runHelper(mode string) int {
	switch mode {
	case "canary":
		return runCanary()
	case "acquirer":
		return runAcquirer()
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}

// runCanary records every watched signal it receives, by number. On
// "report" it answers with the signals received since its last answer
// ("none" if none); on "expect N" it first waits, boundedly, for signal N.
// It is alive until its stdin closes.
func runCanary() int {
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, append(watchedSignals, markerSignal)...)
	var got []string
	record := func(s os.Signal) {
		if s != markerSignal {
			got = append(got, strconv.Itoa(int(s.(syscall.Signal))))
		}
	}
	// flush takes in every signal sent before it: the marker is sent last
	// and has the highest number, and Linux delivers lower numbers first.
	flush := func() {
		_ = syscall.Kill(os.Getpid(), markerSignal)
		for s := range sigs {
			if s == markerSignal {
				return
			}
			record(s)
		}
	}
	answer := func() {
		if len(got) == 0 {
			fmt.Println("none")
		} else {
			fmt.Println(strings.Join(got, ","))
		}
		got = nil
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		line := in.Text()
		flush()
		if want, ok := strings.CutPrefix(line, "expect "); ok {
			deadline := time.After(ioTimeout / 2)
		wait:
			for !slices.Contains(got, want) {
				select {
				case s := <-sigs:
					record(s)
				case <-deadline:
					break wait
				}
			}
		}
		answer()
	}
	return 0
}

// runAcquirer takes ownership on request as the daemon its command line
// claims (see startAcquirer), one line per command:
//
//	acquire [files] -> won | held <pid> <ownerId|-> | busy <pid> | err <reason> <message>
//	release         -> released | err ...
//
// "files" acquires without the name lock, as a reference daemon would.
func runAcquirer() int {
	flags, err := helperFlags(os.Args[1:], daemonproto.FlagAgentDir, daemonproto.FlagName, daemonproto.FlagOwnerID)
	if err != nil {
		fmt.Fprintln(os.Stderr, "acquirer:", err)
		return 2
	}
	p := ownership.PathsFor(flags[daemonproto.FlagAgentDir], flags[daemonproto.FlagName])
	req := ownership.AcquireRequest{Kind: "discord", OwnerID: flags[daemonproto.FlagOwnerID], Identity: testIdentity, Generation: 7}
	var owner *Owner
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		switch {
		case len(f) >= 1 && len(f) <= 2 && f[0] == "acquire":
			e := defaultEnv()
			e.filesOnly = len(f) == 2 && f[1] == "files"
			o, err := acquireRetrying(p, req, e)
			var held *ownership.HeldError
			var busy *ownership.ReclaimBusyError
			switch {
			case err == nil:
				owner = o
				fmt.Println("won")
			case errors.As(err, &held):
				fmt.Printf("held %d %s\n", held.PID, orDash(held.OwnerID))
			case errors.As(err, &busy):
				fmt.Printf("busy %d\n", busy.PID)
			default:
				fmt.Printf("err %s %s\n", ownership.Reason(err), errLine(err))
			}
		case len(f) == 1 && f[0] == "release":
			if owner == nil {
				fmt.Println("err none no owner")
				continue
			}
			if err := owner.Release(nil); err != nil {
				fmt.Printf("err %s %s\n", ownership.Reason(err), errLine(err))
				continue
			}
			owner = nil
			fmt.Println("released")
		default:
			fmt.Printf("err usage %q\n", in.Text())
		}
	}
	return 0
}

// startAcquirer starts an acquirer whose command line is that of the
// daemon name in agentDir running as ownerID.
func startAcquirer(t testing.TB, agentDir, name, ownerID string) *helper {
	t.Helper()
	return startHelper(t, "acquirer", daemonproto.Args(ownership.DaemonClaim{AgentDir: agentDir, Name: name, OwnerID: ownerID}, 7)...)
}

// acquireRetrying retries the answers that mean "contended, ask again" as
// the reconciler does by respawning: a loaded machine can stretch a reclaim
// past Acquire's one-second wait, which says nothing about who owns the name.
func acquireRetrying(p ownership.Paths, req ownership.AcquireRequest, e env) (*Owner, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		o, err := acquire(p, req, SystemProbe(), e)
		if err == nil || time.Now().After(deadline) ||
			!(errors.Is(err, ownership.ErrReclaimBusy) || strings.Contains(err.Error(), "keeps changing hands")) {
			return o, err
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func errLine(err error) string { return ownership.OneLine(err.Error()) }

// helper is a running helper process.
type helper = helperproc.Proc

// startHelper starts the test binary in mode; it is stopped when the test
// ends, by closing its stdin, and reaped.
func startHelper(t testing.TB, mode string, args ...string) *helper {
	t.Helper()
	return helperproc.Start(t, helperproc.Self(t, helperEnv, mode, args...))
}

// canary is a live process that records any signal sent to it.
type canary struct {
	*helper
	incarnation string
}

// startCanary starts a canary whose command line is that of the test's
// daemon "bot" (see testPaths) running as testOwnerID: a process the
// ownership checks take for that daemon's owner when a record names it.
func startCanary(t testing.TB) *canary {
	t.Helper()
	return startCanaryAs(t, ownership.ClaimOf(testPaths(t), testOwnerID))
}

// startCanaryAs starts a canary whose command line claims c.
func startCanaryAs(t testing.TB, claim ownership.DaemonClaim) *canary {
	t.Helper()
	h := startHelper(t, "canary", daemonproto.Args(claim, 7)...)
	if got := h.Recv(t); got != "ready" {
		t.Fatalf("canary: %q", got)
	}
	c := &canary{helper: h, incarnation: incarnationOf(t, h.PID())}
	// A signal that arrived too late for the question it was meant for
	// still shows here.
	t.Cleanup(func() {
		if !t.Failed() {
			c.assertUntouched(t)
		}
	})
	return c
}

// signals returns the numbers of the signals the canary received since
// the last question ("none" if none), and fails the test if it is no
// longer alive.
func (c *canary) signals(t testing.TB) string {
	t.Helper()
	return c.ask(t, "report")
}

// expect waits for the canary to receive sig and returns all it received.
func (c *canary) expect(t testing.TB, sig syscall.Signal) string {
	t.Helper()
	return c.ask(t, "expect "+strconv.Itoa(int(sig)))
}

func (c *canary) ask(t testing.TB, q string) string {
	t.Helper()
	c.Send(t, q)
	got := c.Recv(t)
	if alive, err := platform.Alive(c.PID()); err != nil || !alive {
		t.Fatalf("canary %d is not alive (%v)", c.PID(), err)
	}
	return got
}

// assertUntouched fails the test if the canary received any signal.
func (c *canary) assertUntouched(t testing.TB) {
	t.Helper()
	if got := c.signals(t); got != "none" {
		t.Fatalf("canary %d received signals %s", c.PID(), got)
	}
}

func incarnationOf(t testing.TB, pid int) string {
	t.Helper()
	inc, err := platform.Incarnation(pid)
	if err != nil {
		t.Fatalf("Incarnation(%d): %v", pid, err)
	}
	return inc
}

// deadPID returns the PID of a process that has exited and been reaped.
func deadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if alive, err := platform.Alive(pid); err != nil || alive {
		t.Fatalf("pid %d of an exited process is alive (%v)", pid, err)
	}
	return pid
}

// otherIncarnation is a valid incarnation that no live process has: what
// a record of a process whose PID was reused holds.
const otherIncarnation = "linux:1"

const (
	testIdentity = "7040273bec62d43f"
	testOwnerID  = "4100-6f1c1c52-7a0e-4d0e-9b7e-1d2f3a4b5c6d"
)

func gen(g spec.Generation) spec.OptGeneration { return g.Opt() }

func ms(t int64) *int64 { return &t }

// stateOf returns a valid running record for pid/incarnation.
func stateOf(pid int, incarnation string) ownership.State {
	now := time.Now().UnixMilli()
	return ownership.State{
		Version: 1, Kind: "discord", PID: pid, OwnerID: testOwnerID, Identity: testIdentity,
		Incarnation: incarnation, StartedAt: now - 1000, HeartbeatAt: now,
		TransportHealthy: true, Generation: gen(7),
	}
}

var desired = ownership.Desired{Kind: "discord", Identity: testIdentity, Generation: 7}

// testAgentDirs is each test's agent dir, made on first use.
var testAgentDirs sync.Map // testing.TB -> dir

// testPaths returns the paths of daemon "bot" in the test's own agent dir,
// the same on every call of one test, so that a canary started before
// them can claim them.
func testPaths(t testing.TB) ownership.Paths {
	t.Helper()
	dir, ok := testAgentDirs.Load(t)
	if !ok {
		dir, _ = testAgentDirs.LoadOrStore(t, t.TempDir())
		t.Cleanup(func() { testAgentDirs.Delete(t) })
	}
	return ownership.PathsFor(dir.(string), "bot")
}

// newPaths returns testPaths with the daemon's directory created.
func newPaths(t testing.TB) ownership.Paths {
	t.Helper()
	p := testPaths(t)
	if err := EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func writeState(t testing.TB, p ownership.Paths, s ownership.State) []byte {
	t.Helper()
	data := s.Marshal()
	writeFile(t, p.State, data)
	return data
}

func writeLock(t testing.TB, path string, pid int, incarnation string) []byte {
	t.Helper()
	data := (&ownership.OwnerLock{PID: pid, Incarnation: incarnation, CreatedAt: time.Now().UnixMilli()}).Marshal()
	writeFile(t, path, data)
	return data
}

// snapshot is everything in a directory tree: names, modes, inodes and
// contents, to prove an operation changed nothing.
type snapshot map[string]string

func snap(t testing.TB, dir string) snapshot {
	t.Helper()
	s := snapshot{}
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		st := info.Sys().(*syscall.Stat_t)
		entry := fmt.Sprintf("mode=%v ino=%d", info.Mode(), st.Ino)
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			entry += " data=" + strconv.Quote(string(data))
		}
		if info.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			entry += " link=" + target
		}
		s[rel] = entry
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return s
}

func (s snapshot) diff(o snapshot) string {
	var keys []string
	for k := range s {
		keys = append(keys, k)
	}
	for k := range o {
		if _, ok := s[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var d []string
	for _, k := range keys {
		if s[k] != o[k] {
			d = append(d, fmt.Sprintf("%s: %q -> %q", k, s[k], o[k]))
		}
	}
	return strings.Join(d, "\n")
}

func assertSame(t testing.TB, before snapshot, dir, what string) {
	t.Helper()
	if d := before.diff(snap(t, dir)); d != "" {
		t.Fatalf("%s changed files:\n%s", what, d)
	}
}

// fakeProbe answers from tables; a PID not in alive is dead.
type fakeProbe struct {
	alive    map[int]bool
	aliveErr map[int]error
	inc      map[int]string
	incErr   map[int]error
	boot     time.Time
	bootErr  error
	bootID   string
	now      time.Time
	// argv answers Argv; a live PID without an entry runs the daemon
	// claim names (tableClaim if unset).
	argv    map[int][]string
	argvErr map[int]error
	claim   ownership.DaemonClaim
}

// tablePaths are the paths the table tests' records claim.
var tablePaths = ownership.PathsFor("/agent", "bot")

// tableClaim is the daemon a fakeProbe's live PIDs run by default.
var tableClaim = ownership.ClaimOf(tablePaths, testOwnerID)

func (f *fakeProbe) Argv(pid int, incarnation string) ([]string, error) {
	if err := f.argvErr[pid]; err != nil {
		return nil, err
	}
	if inc, err := f.Incarnation(pid); err != nil {
		return nil, err
	} else if inc != incarnation {
		return nil, &platform.IncarnationMismatchError{PID: pid, Want: incarnation, Got: inc}
	}
	if argv, ok := f.argv[pid]; ok {
		return argv, nil
	}
	c := f.claim
	if c == (ownership.DaemonClaim{}) {
		c = tableClaim
	}
	return append([]string{"reconciler"}, daemonproto.Args(c, 7)...), nil
}

// selfProbe is the system probe, except that this process (the test
// binary, which cannot have a daemon's command line) runs as the daemon of
// p with owner testOwnerID: for tests of records this process published.
type selfProbe struct {
	Probe
	claim ownership.DaemonClaim
}

func selfAsDaemon(p ownership.Paths) Probe {
	return selfProbe{Probe: SystemProbe(), claim: ownership.ClaimOf(p, testOwnerID)}
}

func (s selfProbe) Argv(pid int, incarnation string) ([]string, error) {
	argv, err := s.Probe.Argv(pid, incarnation)
	if err == nil && pid == os.Getpid() {
		return append([]string{"reconciler"}, daemonproto.Args(s.claim, 7)...), nil
	}
	return argv, err
}

func (f *fakeProbe) Alive(pid int) (bool, error) {
	if err := f.aliveErr[pid]; err != nil {
		return false, err
	}
	return f.alive[pid], nil
}

func (f *fakeProbe) Incarnation(pid int) (string, error) {
	if err := f.incErr[pid]; err != nil {
		return "", err
	}
	if inc, ok := f.inc[pid]; ok {
		return inc, nil
	}
	return "", fmt.Errorf("incarnation: %w", platform.ErrProcessGone)
}

// Observe answers as platform.Observe would from the tables: an Alive
// error is liveness unknown; a live PID without a readable incarnation is
// alive with an error.
func (f *fakeProbe) Observe(pid int) (bool, string, error) {
	alive, err := f.Alive(pid)
	switch {
	case err != nil:
		return false, "", err
	case !alive:
		return false, "", nil
	}
	inc, err := f.Incarnation(pid)
	if err != nil {
		return true, "", err
	}
	return true, inc, nil
}

// BootID is bootID, or none (an error) when it is empty.
func (f *fakeProbe) BootID() (string, error) {
	if f.bootID == "" {
		return "", errors.New("no boot id")
	}
	return f.bootID, nil
}

func (f *fakeProbe) BootTime() (time.Time, error) { return f.boot, f.bootErr }
func (f *fakeProbe) Now() time.Time               { return f.now }

// classifyNow is Classify over the facts probe gives about rec now.
func classifyNow(rec ownership.Record, d ownership.Desired, probe Probe) ownership.Classification {
	return ownership.Classify(rec, d, GatherFacts(probe, rec))
}

// helperFlags reads the --flag value pairs a helper was started with.
func helperFlags(args []string, want ...string) (map[string]string, error) {
	got := map[string]string{}
	for i := 0; i+1 < len(args); i++ {
		if name, ok := strings.CutPrefix(args[i], "--"); ok {
			got[name] = args[i+1]
			i++
		}
	}
	for _, w := range want {
		if got[w] == "" {
			return nil, fmt.Errorf("missing --%s", w)
		}
	}
	return got, nil
}
