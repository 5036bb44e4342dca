package inbound

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
)

// serve makes r's service serve content at name on its file host, and
// returns the file as an event lists it.
func (r *rig) serve(name string, content []byte) RemoteFile {
	url := fileHost + name
	r.svc.mu.Lock()
	r.svc.served[url] = content
	r.svc.mu.Unlock()
	return RemoteFile{ID: "f-" + name, Name: name, Size: int64(len(content)), ContentType: "image/png", URL: url}
}

func (r *rig) fetches() []string {
	r.svc.mu.Lock()
	defer r.svc.mu.Unlock()
	return append([]string(nil), r.svc.fetches...)
}

// landed reads the inbox file of e in session s, and its listed files'
// contents by name.
func (r *rig) landed(s string, e Event) (bus.InboxMessage, map[string][]byte) {
	r.t.Helper()
	file, err := bus.InboxFileName(bus.InboxMessage{ID: e.ID, TS: bus.InboxTime(e.Time)})
	if err != nil {
		r.t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(r.d.Inbox, s, file))
	if err != nil {
		r.t.Fatal(err)
	}
	m, err := bus.DecodeInbox(data)
	if err != nil {
		r.t.Fatalf("%s: %v", data, err)
	}
	got := map[string][]byte{}
	for _, f := range m.Files {
		if f.Path == "" {
			continue
		}
		if n, err := bus.LandedFile(r.d, s, f); err != nil || n != f.Size {
			r.t.Fatalf("%s: LandedFile = %d, %v; listed %d bytes", f.Path, n, err, f.Size)
		}
		b, err := os.ReadFile(filepath.Join(r.d.Inbox, s, f.Path))
		if err != nil {
			r.t.Fatal(err)
		}
		got[f.Name] = b
	}
	return m, got
}

func TestReplyWithFilesLandsBesideIt(t *testing.T) {
	r := newRig(t)
	r.maxFile = 1000
	r.start()
	shot := bytes.Repeat([]byte("png!"), 200)
	e := ev("100", "T1", "alice")
	big := r.serve("big.bin", make([]byte, 1001))
	e.Files = []RemoteFile{
		r.serve("shot.png", shot),
		r.serve("../../.ssh/authorized_keys", []byte("climb")),
		r.serve("Shot.PNG", []byte("folds to the first")),
		big,
		{ID: "f-off", Name: "off.png", Size: 10, URL: "https://elsewhere.test/off.png"},
		{ID: "f-local", Name: "passwd", Size: 10, URL: "file:///etc/passwd"},
	}
	if o := r.receive(e); o != Landed {
		t.Fatalf("Receive = %v", o)
	}
	m, got := r.landed("s1", e)
	want := []struct{ name, original, skipped string }{
		{"shot.png", "", ""},
		{"authorized_keys", "../../.ssh/authorized_keys", ""},
		{"Shot (2).PNG", "Shot.PNG", ""},
		{"big.bin", "", "1001 B, over maxInboundFileBytes 1000 B"},
		{"off.png", "", "not fetched: https://elsewhere.test/off.png is not on the service's file host"},
		{"passwd", "", "not fetched: not an http(s) URL of a file host"},
	}
	if len(m.Files) != len(want) {
		t.Fatalf("files = %+v", m.Files)
	}
	for i, w := range want {
		f := m.Files[i]
		if f.Name != w.name || f.Original != w.original || f.Skipped != w.skipped {
			t.Errorf("files[%d] = %+v; want %+v", i, f, w)
		}
	}
	if m.Files[3].Size != 1001 || m.Files[3].Path != "" {
		t.Errorf("the oversized file is listed %+v; want its size and no path", m.Files[3])
	}
	if !bytes.Equal(got["shot.png"], shot) || string(got["authorized_keys"]) != "climb" || len(got) != 3 {
		t.Errorf("landed files = %q", got)
	}
	if f := r.fetches(); len(f) != 4 || strings.Contains(strings.Join(f, " "), "big.bin") || strings.Contains(strings.Join(f, " "), "file:") {
		t.Errorf("fetched %v; the oversized file and a file: URL must not be", f)
	}
	for _, f := range m.Files[:3] {
		fi, err := os.Lstat(filepath.Join(r.d.Inbox, "s1", f.Path))
		if err != nil || fi.Mode() != 0o600 {
			t.Errorf("%s: %v, %v; want mode 0600", f.Path, fi, err)
		}
	}
	if o := r.receive(e); o != Duplicate {
		t.Fatalf("a second delivery: %v", o)
	}
	if f := r.fetches(); len(f) != 4 {
		t.Errorf("a duplicate fetched again: %v", f)
	}
	h := r.in.Health()
	if h.Files.Landed != 3 || h.Files.Skipped != 3 || h.Files.Bytes != int64(len(shot))+5+18 {
		t.Errorf("health files = %+v", h.Files)
	}
}

// A fetch that fails for now keeps the reply owed: nothing lands, no
// stage is left, and it lands, with its file, once the fetch succeeds.
func TestTransientFetchErrorOwesTheReply(t *testing.T) {
	r := newRig(t)
	r.svc.fetchFail = errors.New("connection reset")
	r.start()
	e := ev("100", "T1", "alice")
	e.Files = []RemoteFile{r.serve("shot.png", []byte("pixels"))}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.in.Receive(ctx, e); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("Receive = %v; want the fetch's error", err)
	}
	if f := r.files(); len(f) != 0 {
		t.Fatalf("landed without its file: %v", f)
	}
	if h := r.in.Health(); h.Owed != 1 || h.Landed != 0 {
		t.Fatalf("health = %+v; want the reply owed", h)
	}
	r.svc.mu.Lock()
	r.svc.fetchFail = nil
	r.svc.mu.Unlock()
	waitUntil(t, "the owed reply", func() bool { h := r.in.Health(); return h.Landed == 1 && h.Owed == 0 })
	if _, got := r.landed("s1", e); string(got["shot.png"]) != "pixels" {
		t.Fatalf("landed files = %q", got)
	}
	if s, _ := bus.ListStagedInboxFiles(r.d); len(s) != 0 {
		t.Fatalf("stages left: %v", s)
	}
}

// Over the limit without the service saying so: Fetch's ErrTooLarge, or
// an adapter that writes past max regardless; either is skipped, and
// nothing over the limit stays on disk.
func TestFetchOverTheLimitIsSkipped(t *testing.T) {
	for _, overrun := range []bool{false, true} {
		r := newRig(t)
		r.maxFile = 10
		r.svc.overrun = overrun
		r.start()
		e := ev("100", "T1", "alice")
		f := r.serve("big.bin", make([]byte, 50))
		f.Size = -1
		e.Files = []RemoteFile{f}
		if o := r.receive(e); o != Landed {
			t.Fatalf("Receive = %v", o)
		}
		m, got := r.landed("s1", e)
		if len(got) != 0 || m.Files[0].Skipped != "more than 10 B, over maxInboundFileBytes 10 B" || m.Files[0].Size < 11 {
			t.Errorf("overrun %v: files %+v, landed %q", overrun, m.Files, got)
		}
		file, _ := bus.InboxFileName(m)
		if _, err := os.Lstat(filepath.Join(r.d.Inbox, "s1", bus.InboxFilesDir(file))); !os.IsNotExist(err) {
			t.Errorf("overrun %v: a files directory for no landed file", overrun)
		}
	}
}

// Two deliveries at once (the live one and a history read) fetch once:
// the second waits for the first, and finds the reply landed.
func TestConcurrentDeliveriesFetchOnce(t *testing.T) {
	r := newRig(t)
	r.svc.fetchGate = make(chan struct{})
	r.start()
	e := ev("100", "T1", "alice")
	e.Files = []RemoteFile{r.serve("shot.png", []byte("pixels"))}
	var wg sync.WaitGroup
	outcomes := make([]Outcome, 2)
	for i := range outcomes {
		wg.Add(1)
		go func() { defer wg.Done(); outcomes[i] = r.receive(e) }()
	}
	waitUntil(t, "a fetch", func() bool { return len(r.fetches()) == 1 })
	close(r.svc.fetchGate)
	wg.Wait()
	if f := r.fetches(); len(f) != 1 {
		t.Errorf("fetched %d times", len(f))
	}
	if !(outcomes[0] == Landed && outcomes[1] == Duplicate || outcomes[0] == Duplicate && outcomes[1] == Landed) {
		t.Errorf("outcomes %v", outcomes)
	}
}

// The files' directory is published before the reply: at the step
// between them, a reader sees the files and not yet the reply; never
// the reply without its files.
func TestFilesPublishedBeforeTheReply(t *testing.T) {
	r := newRig(t)
	e := ev("100", "T1", "alice")
	file, _ := bus.InboxFileName(bus.InboxMessage{ID: e.ID, TS: bus.InboxTime(e.Time)})
	seen := map[string]bool{}
	r.step = func(step, id string) {
		if step != StepFilesPublished || id != e.ID {
			return
		}
		_, derr := os.Lstat(filepath.Join(r.d.Inbox, "s1", bus.InboxFilesDir(file)))
		_, ferr := os.Lstat(filepath.Join(r.d.Inbox, "s1", file))
		seen["dir"], seen["reply"] = derr == nil, ferr == nil
	}
	r.start()
	e.Files = []RemoteFile{r.serve("shot.png", []byte("pixels"))}
	r.receive(e)
	if !seen["dir"] || seen["reply"] {
		t.Fatalf("at %s: %v; want the files directory there and the reply not yet", StepFilesPublished, seen)
	}
}

// At start, a files stage no record names is removed (its reply is
// delivered, and fetched, again); one a record names is published, then
// its reply.
func TestRecoveryRemovesOrPublishesFilesStages(t *testing.T) {
	r := newRig(t)
	if err := bus.EnsureDirs(r.d); err != nil {
		t.Fatal(err)
	}
	stageWith := func(m bus.InboxMessage) string {
		file, err := bus.InboxFileName(m)
		if err != nil {
			t.Fatal(err)
		}
		st, err := bus.StageInboxFiles(r.d, m.Session, file)
		if err != nil {
			t.Fatal(err)
		}
		_, f, err := st.Create("shot.png")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("pixels"); err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
		if err := st.Done(); err != nil {
			t.Fatal(err)
		}
		m.Files = []bus.InboxFile{{Name: "shot.png", Size: 6, Path: bus.InboxFilePath(file, "shot.png")}}
		if _, err := bus.StageInbox(r.d, m); err != nil {
			t.Fatal(err)
		}
		return file
	}
	recorded := stageWith(bus.InboxMessage{ID: "100", Session: "s1", User: "alice", Text: "kept", TS: bus.InboxTime(t0)})
	unrecorded := stageWith(bus.InboxMessage{ID: "200", Session: "s2", User: "alice", Text: "again", TS: bus.InboxTime(t0)})
	j, err := bus.OpenInboundJournal(r.d.InboundJournalPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(context.Background(), bus.InboundRecord{Op: bus.OpLanded, ID: "100", Place: "T1", Session: "s1", File: recorded, At: t0.UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	r.start()
	waitUntil(t, "the recovered landing", func() bool { return len(r.files()) == 1 })
	if s, _ := bus.ListStagedInboxFiles(r.d); len(s) != 0 {
		t.Fatalf("files stages left: %v", s)
	}
	if _, got := r.landed("s1", Event{ID: "100", Time: t0}); string(got["shot.png"]) != "pixels" {
		t.Fatalf("recovered files = %q", got)
	}
	if _, err := os.Lstat(filepath.Join(r.d.Inbox, "s2", bus.InboxFilesDir(unrecorded))); err == nil {
		t.Fatal("the unrecorded reply's files were published")
	}
}

func TestSizesInReasons(t *testing.T) {
	for _, c := range []struct {
		size, limit int64
		want        string
	}{
		{12 << 20, 10 << 20, "12.0 MiB, over maxInboundFileBytes 10 MiB"},
		{1001, 1000, "1001 B, over maxInboundFileBytes 1000 B"},
		{3 << 30, 1536 << 20, "3.0 GiB, over maxInboundFileBytes 1.5 GiB"},
		{70 << 10, 64 << 10, "70.0 KiB, over maxInboundFileBytes 64 KiB"},
	} {
		if got := overLimit(c.size, c.limit); got != c.want {
			t.Errorf("overLimit(%d, %d) = %q, want %q", c.size, c.limit, got, c.want)
		}
	}
}

// A reply whose landing stops after its files were fetched (here the
// fence refuses it) leaves no stage of them behind: the retry fetches
// again.
func TestFenceRefusalLeavesNoFilesStage(t *testing.T) {
	r := newRig(t)
	lost := errors.New("ownership lost")
	in := New(Options{Bus: r.d, Service: r.svc, Sessions: fakeSessions{places: map[string]string{"T1": "s1"}}, Authorized: []string{"alice"},
		Log: testr.New(t), Fence: func() error { return lost }})
	if err := in.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Stop(context.Background()) }()
	e := ev("100", "T1", "alice")
	e.Files = []RemoteFile{r.serve("shot.png", []byte("pixels"))}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := in.Receive(ctx, e); !errors.Is(err, lost) {
		t.Fatalf("Receive = %v, want the fence's error", err)
	}
	if err := in.Stop(ctx); err != nil { // and its retries with it
		t.Fatal(err)
	}
	if s, err := bus.ListStagedInboxFiles(r.d); err != nil || len(s) != 0 {
		t.Fatalf("files stages left: %v, %v", s, err)
	}
}

func TestRefusedURL(t *testing.T) {
	for _, c := range []struct {
		url     string
		refused bool
	}{
		{"", false},
		{"https://cdn.discordapp.com/attachments/1/2/shot.png?ex=1", false},
		{"http://127.0.0.1:8080/files/shot.png", false},
		{"file:///etc/passwd", true},
		{"data:text/plain,hello", true},
		{"https://user:pass@files.slack.com/x", true},
		{"//files.slack.com/x", true},
		{"https:///x", true},
		{"gopher://files.test/x", true},
		{"http://[::1", true},
	} {
		if got := refusedURL(c.url) != ""; got != c.refused {
			t.Errorf("refusedURL(%q) = %q; want refused %v", c.url, refusedURL(c.url), c.refused)
		}
	}
}
