package fleetbus_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/go-logr/logr/testr"
	"github.com/google/uuid"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/fleetbus"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
)

// machine is one machine of a fleet as far as its inbox goes: its agent
// dir, its own etcd client, and its loop's InboxFollower for "bot".
type machine struct {
	t        *testing.T
	agentDir string
	dirs     bus.Dirs
	cli      *clientv3.Client
	logs     *lines

	follower *fleetbus.InboxFollower
	stop     func()
}

func newMachine(t *testing.T, c *etcdtest.Cluster) *machine {
	t.Helper()
	agentDir := t.TempDir()
	d, err := bus.Paths(agentDir, "bot")
	if err != nil {
		t.Fatal(err)
	}
	m := &machine{t: t, agentDir: agentDir, dirs: d, cli: c.Client(t), logs: &lines{}}
	t.Cleanup(func() { m.halt() })
	return m
}

// start runs the machine's loop side: a fresh InboxFollower, as a loop
// that starts again has.
func (m *machine) start() {
	m.follower = &fleetbus.InboxFollower{
		Client: m.cli, Prefix: prefix, AgentDir: m.agentDir, Names: func() []string { return []string{"bot"} },
		Log: m.logs.logger(m.t), Every: 50 * time.Millisecond,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := m.follower.Run(ctx); err != nil {
			m.t.Errorf("InboxFollower.Run: %v", err)
		}
	}()
	m.stop = func() { cancel(); <-done }
}

func (m *machine) halt() {
	if m.stop != nil {
		m.stop()
		m.stop = nil
	}
}

// sync is one whole pass of a follower made for it, returned when done.
func (m *machine) sync() {
	m.t.Helper()
	f := &fleetbus.InboxFollower{Client: m.cli, Prefix: prefix, AgentDir: m.agentDir, Log: m.logs.logger(m.t)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := f.Sync(ctx, m.dirs, "bot"); err != nil {
		m.t.Fatal(err)
	}
}

// files are every file under the machine's agent dir but the fleet's
// ledger and the inbound journal, relative to the bus, with their bytes:
// anything written where it should not be shows here.
func (m *machine) files() map[string]string {
	m.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(m.agentDir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(m.dirs.Dir, path)
		if e.IsDir() {
			if rel == fleetbus.FleetInbox {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == "inbound.journal" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		m.t.Fatal(err)
	}
	return out
}

// lines collects what a follower logs.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) logger(t *testing.T) logr.Logger {
	tl := testr.New(t)
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		l.all = append(l.all, args)
		l.mu.Unlock()
		tl.Info(args)
	}, funcr.Options{})
}

func (l *lines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.all {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// owner is the owning machine's daemon side: its claim, and its inbound
// side landing through the fleet's bus as a daemon's does.
type owner struct {
	in    *inbound.Inbound
	close func()
}

func newOwner(t *testing.T, m *machine) *owner { return newOwnerOf(t, m, quietService{}) }

// newOwnerOf is newOwner, its inbound side reading from svc.
func newOwnerOf(t *testing.T, m *machine, svc inbound.Service) *owner {
	t.Helper()
	// Nothing renews the claim here: its lease outlasts the test.
	s, err := etcdstore.New(etcdstore.Options{Client: m.cli, AgentDir: m.agentDir, Machine: "m1", LeaseTTL: time.Minute, Prefix: prefix, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c, err := s.AcquireClaim("bot", ownership.AcquireRequest{Kind: "discord", OwnerID: fmt.Sprintf("%d-%s", os.Getpid(), uuid.NewString()), Identity: "7040273bec62d43f", Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	rb := fleetbus.ForRelay(c, m.dirs, testr.New(t))
	in := inbound.New(inbound.Options{
		Bus: m.dirs, Service: svc, Sessions: oneSession{}, Authorized: []string{"alice"},
		Fence: c.Fence, Keep: rb.KeepInbox, Log: testr.New(t),
	})
	if err := in.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	o := &owner{in: in, close: func() {
		once.Do(func() {
			_ = in.Stop(context.Background())
			_ = c.Close()
		})
	}}
	t.Cleanup(o.close)
	return o
}

// land lands reply n of alice in session s1, and returns the inbox file
// it makes, relative to the bus, with its bytes.
func (o *owner) land(t *testing.T, n int) (string, string) {
	t.Helper()
	ev := inbound.Event{ID: fmt.Sprint(1000 + n), Place: "T1", User: "alice", Text: fmt.Sprintf("reply %d", n), Time: time.Now().Add(-time.Minute).Truncate(time.Millisecond)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := o.in.Receive(ctx, ev); err != nil || out != inbound.Landed {
		t.Fatalf("landing reply %d: %v, %v", n, out, err)
	}
	m := bus.InboxMessage{ID: ev.ID, Session: "s1", User: ev.User, Text: ev.Text, TS: bus.InboxTime(ev.Time)}
	file, _ := bus.InboxFileName(m)
	data, _ := bus.EncodeInbox(m)
	return filepath.Join("inbox", "s1", file), string(data)
}

type quietService struct{}

func (quietService) Fetch(context.Context, inbound.RemoteFile, int64, io.Writer) (int64, error) {
	return 0, &inbound.PermanentError{Err: errors.New("no files here")}
}

func (quietService) History(context.Context, string, string, time.Time, func(inbound.Event) error) error {
	return nil
}
func (quietService) React(context.Context, string, string) error { return nil }

type oneSession struct{}

func (oneSession) Loaded() <-chan struct{} { c := make(chan struct{}); close(c); return c }
func (oneSession) SessionAt(p string) (string, bool) {
	return "s1", p == "T1"
}
func (oneSession) OpenPlaces() []inbound.Place { return nil }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitForShowing(t, what, cond, func() string { return "" })
}

// waitForShowing is waitFor, saying what show says when it times out.
func waitForShowing(t *testing.T, what string, cond func() bool, show func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s %s", what, show())
		}
		<-tick.C
	}
}

// same reports whether got holds exactly want.
func same(got, want map[string]string) bool { return fmt.Sprint(got) == fmt.Sprint(want) }

// A reply the owner's daemon lands reaches every machine's inbox, once:
// the owner's own machine is not written to again, a reader that took
// its copy never gets it back (a loop restarted, a watch compacted past
// included), and the daemon of a machine that takes the name over does
// not land it there a second time.
func TestInboxReachesEveryMachineOnce(t *testing.T) {
	c := etcdtest.Start(t, etcdtest.Options{Members: 3})
	ms := []*machine{newMachine(t, c), newMachine(t, c), newMachine(t, c)}
	for _, m := range ms {
		m.start()
	}
	o := newOwner(t, ms[0])
	file1, data1 := o.land(t, 1)
	want := map[string]string{file1: data1}
	for i, m := range ms {
		waitFor(t, fmt.Sprintf("reply 1 in machine %d's inbox", i+1), func() bool { return same(m.files(), want) })
	}

	// The readers take it everywhere; no pass brings it back, on the
	// owner's machine neither (it has it from its daemon, not a copy).
	for _, m := range ms {
		if err := os.Remove(filepath.Join(m.dirs.Dir, file1)); err != nil {
			t.Fatal(err)
		}
		m.sync()
		if got := m.files(); len(got) != 0 {
			t.Fatalf("a reply taken by its reader came back: %v", got)
		}
	}

	// A machine's loop restarts, and the watch it would resume from is
	// compacted away meanwhile: the listing it starts from brings the
	// new reply, and only it.
	ms[1].halt()
	file2, data2 := o.land(t, 2)
	waitFor(t, "reply 2 in the owner's inbox", func() bool { return same(ms[0].files(), map[string]string{file2: data2}) })
	resp, err := ms[1].cli.Get(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ms[1].cli.Compact(context.Background(), resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	ms[1].start()
	for i, m := range ms {
		waitFor(t, fmt.Sprintf("reply 2 alone in machine %d's inbox", i+1), func() bool { return same(m.files(), map[string]string{file2: data2}) })
	}

	// Machine 2 takes the name over and its daemon reads the thread's
	// history again: reply 2, copied there already, is not landed twice.
	if err := os.Remove(filepath.Join(ms[1].dirs.Dir, file2)); err != nil {
		t.Fatal(err)
	}
	ms[1].halt()
	o.close()
	takeover := newOwner(t, ms[1])
	if err := landAgain(t, takeover, data2); err != nil {
		t.Fatal(err)
	}
	ms[1].sync()
	if got := ms[1].files(); len(got) != 0 {
		t.Fatalf("a reply copied here was landed again by the new owner: %v", got)
	}
}

// landAgain lands the reply data holds again, as a new owner reading the
// thread's history after a takeover does.
func landAgain(t *testing.T, o *owner, data string) error {
	t.Helper()
	m, err := bus.DecodeInbox([]byte(data))
	if err != nil {
		return err
	}
	at, _ := time.Parse(bus.InboxTimeLayout, m.TS)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := o.in.Receive(ctx, inbound.Event{ID: m.ID, Place: "T1", User: m.User, Text: m.Text, Time: at})
	if err != nil {
		return err
	}
	if out != inbound.Landed {
		return errors.New("not landed: " + fmt.Sprint(out))
	}
	return nil
}

// An entry of the fleet's inbox whose key or value is not one a landing
// makes is refused, with a word once, and nothing is written for it;
// the entries beside it are copied.
func TestInboxRefusesMalformedEntries(t *testing.T) {
	c := etcdtest.Start(t, etcdtest.Options{Members: 3})
	m := newMachine(t, c)
	dir := fleetbus.Dir(prefix, "bot") + "inbox/"
	good := `{"id":"1001","session":"s1","user":"alice","text":"fine","ts":"2026-12-02T08:00:00.000Z"}`
	bad := map[string]string{
		"../../../evil.json":                                    good,
		"s1/../../evil.json":                                    good,
		"../1796198400000-1001.json":                            good,
		".s1/1796198400000-1001.json":                           strings.Replace(good, `"s1"`, `".s1"`, 1),
		"s1/.1796198400000-1001.json.copy":                      good,
		"s1/sub/1796198400000-1001.json":                        good,
		"s1/1796198400000-1002.json":                            good, // the id is not the name's
		"s2/1796198400000-1001.json":                            good, // the session is not the key's
		"s1/1796198400000-1003.json":                            "#!/bin/sh\nrm -rf ~\n",
		"s1/1796198400000-1004.json":                            `{"id":"1004","session":"s1","text":"` + strings.Repeat("a", bus.MaxInboxFileSize) + `"}`,
		"s1/1796198400000-1005.json":                            "{\"id\":\"1005\",\"session\":\"s1\",\"text\":\"\xff\"}",
		"s1/1796198400000-" + strings.Repeat("x", 70) + ".json": good,
	}
	for k, v := range bad {
		if _, err := m.cli.Put(context.Background(), dir+k, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.cli.Put(context.Background(), dir+"s1/1796198400000-1001.json", good); err != nil {
		t.Fatal(err)
	}
	m.start()
	want := map[string]string{filepath.Join("inbox", "s1", "1796198400000-1001.json"): good}
	waitFor(t, "the good entry", func() bool { return same(m.files(), want) })
	m.sync() // and a second pass: each refusal is said once a revision
	const refused = "an entry of the fleet's inbox is refused"
	waitFor(t, "a word about each bad entry", func() bool { return m.logs.count(refused) >= 2*len(bad) })
	m.halt()
	if got := m.files(); !same(got, want) {
		t.Fatalf("files = %v, want only %v", got, want)
	}
	if n := m.logs.count(refused); n != len(bad)*2 {
		// Run's follower and sync's each refuse every bad entry once.
		t.Errorf("%d refusals logged, want %d (once a key per follower)", n, len(bad)*2)
	}
	if n := m.logs.count(`inbox/../../../evil.json`); n == 0 {
		t.Errorf("a refusal does not name its key")
	}
}

// The pass every Resync lists the fleet's inbox by its keys: an entry
// every machine has already is not read again (a day of replies, up to
// bus.MaxInboxFileSize each, on every machine for every name, twice a
// minute).
func TestInboxResyncReadsOnlyWhatIsMissing(t *testing.T) {
	c := etcdtest.Start(t, etcdtest.Options{})
	m := newMachine(t, c)
	dir := fleetbus.Dir(prefix, "bot") + "inbox/"
	put := func(n int) {
		id := fmt.Sprint(2000 + n)
		data := `{"id":"` + id + `","session":"s1","user":"alice","text":"` + strings.Repeat("r", 8<<10) + `","ts":"2026-12-02T08:00:00.000Z"}`
		if _, err := m.cli.Put(context.Background(), dir+"s1/1796198400000-"+id+".json", data); err != nil {
			t.Fatal(err)
		}
	}
	for n := range 20 {
		put(n)
	}
	cli := c.Client(t)
	kv := &countingKV{KV: cli.KV}
	cli.KV = kv
	f := &fleetbus.InboxFollower{Client: cli, Prefix: prefix, AgentDir: m.agentDir, Log: m.logs.logger(t)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := f.Sync(ctx, m.dirs, "bot"); err != nil {
		t.Fatal(err)
	}
	if n := len(m.files()); n != 20 {
		t.Fatalf("%d entries copied, want 20", n)
	}
	put(20)
	kv.read.Store(0)
	if _, err := f.Sync(ctx, m.dirs, "bot"); err != nil {
		t.Fatal(err)
	}
	if n := len(m.files()); n != 21 {
		t.Fatalf("%d entries copied, want 21", n)
	}
	if got, max := kv.read.Load(), int64(9<<10); got > max {
		t.Fatalf("a pass with one entry missing read %d bytes of values, want at most %d (that one's)", got, max)
	}
}

// countingKV counts the bytes of the values Get returns.
type countingKV struct {
	clientv3.KV
	read atomic.Int64
}

func (c *countingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	resp, err := c.KV.Get(ctx, key, opts...)
	if err == nil {
		for _, kv := range resp.Kvs {
			c.read.Add(int64(len(kv.Value)))
		}
	}
	return resp, err
}
