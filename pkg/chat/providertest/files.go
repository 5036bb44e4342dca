package providertest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// The outbound file cases (DESIGN 5, "Files"): a message's attachments
// are posted after its text, each as its own message, exactly once across
// kill -9 at every step of its part and across an answer lost after the
// service took it; a file over the service's limits fails the message
// naming the limit, with no request; a long text goes as a .md file; the
// content arrives intact (its SHA-256 at the fake is the file's).
//
// A file's message has no text: the cases compare the texts of a place
// (Place.Replies) without empty ones, and its files through Fake.Files.

// fileContent is a file's deterministic content: seed's bytes, not text,
// so no adapter can take it for something to escape.
func fileContent(seed uint64, size int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

// sentFile is a file the cases expect at the fake.
type sentFile struct {
	name string
	size int64
	sum  string
}

func sumHex(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// fileSession is the session the file cases post: an open, a message
// with text and one file, and a message of two files and no text. It
// writes the files' entries into files/ and returns what the fake must
// hold.
func fileSession(t *testing.T, d bus.Dirs) ([]bus.Message, []sentFile) {
	t.Helper()
	const s = "sess-files"
	msgs := []bus.Message{
		{ID: "f01", Session: s, Event: bus.EventOpen, Title: "Files", Text: "Opening the session."},
		{ID: "f02", Session: s, Text: "The report is attached.", Attachments: []bus.Attachment{
			{File: "f02-0-report.bin", Name: "report.bin", ContentType: "application/octet-stream"}}},
		{ID: "f03", Session: s, Attachments: []bus.Attachment{
			{File: "f03-0-a.bin", Name: "a.bin", ContentType: "application/octet-stream"},
			{File: "f03-1-b.png", Name: "b.png", ContentType: "image/png"}}},
	}
	sizes := map[string]int{"f02-0-report.bin": 200 << 10, "f03-0-a.bin": 1000, "f03-1-b.png": 64 << 10}
	var want []sentFile
	for i, m := range msgs {
		for _, a := range m.Attachments {
			data := fileContent(uint64(i*16+len(want)), sizes[a.File])
			writeEntry(t, d, a.File, data)
			want = append(want, sentFile{name: a.Name, size: int64(len(data)), sum: sumHex(data)})
		}
	}
	return msgs, want
}

// writeEntry writes a files/ entry as a producer does: 0600, whole.
func writeEntry(t *testing.T, d bus.Dirs, entry string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(d.Files, entry), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkFiles says how the fake and the bus differ from msgs posted
// exactly once in one session's place, texts in order, files in order
// with their content intact, every entry moved to sent/<id>.files/.
func checkFiles(f Fake, o relay.RenderOptions, d bus.Dirs, msgs []bus.Message, want []sentFile) []string {
	var bad []string
	places := f.Places()
	if len(places) != 1 {
		return []string{fmt.Sprintf("the channel holds %d places, want 1: %+v", len(places), places)}
	}
	p := places[0]
	exp, order := expect(msgs, o)
	w := exp[order[0]]
	if p.Root != w.root || p.Threads != 1 {
		bad = append(bad, fmt.Sprintf("place root %q with %d threads, want %q with 1", p.Root, p.Threads, w.root))
	}
	texts := slices.DeleteFunc(slices.Clone(p.Replies), func(s string) bool { return s == "" })
	if !slices.Equal(texts, w.replies) {
		bad = append(bad, fmt.Sprintf("the thread holds %d texts, want %d; first difference %s", len(texts), len(w.replies), firstDiff(texts, w.replies)))
	}
	var got []sentFile
	for _, pf := range f.Files(p.Thread) {
		got = append(got, sentFile{name: pf.Name, size: pf.Size, sum: pf.Sum})
	}
	if !slices.Equal(got, want) {
		bad = append(bad, fmt.Sprintf("the thread holds files %+v, want each once, in order: %+v", got, want))
	}
	if names, err := bus.ListOutbox(d.Outbox); err != nil || len(names) != 0 {
		bad = append(bad, fmt.Sprintf("outbox holds %v (%v), want nothing", names, err))
	}
	if n, err := bus.CountFailed(d); err != nil || n != 0 {
		bad = append(bad, fmt.Sprintf("failed/ holds %d (%v), want nothing", n, err))
	}
	if left, err := os.ReadDir(d.Files); err != nil || len(left) != 0 {
		bad = append(bad, fmt.Sprintf("files/ holds %d entries (%v), want every one moved with its message", len(left), err))
	}
	for _, m := range msgs {
		for _, a := range m.Attachments {
			if _, err := os.Stat(filepath.Join(d.Sent, bus.SentFilesDir(m.ID), a.File)); err != nil {
				bad = append(bad, fmt.Sprintf("%s's file %s not in sent/: %v", m.ID, a.File, err))
			}
		}
	}
	return bad
}

// fileCases runs the outbound file cases.
func fileCases(t *testing.T, s Subject, top string) {
	t.Run("Delivered", func(t *testing.T) { s.skipGap(t, top); filesDelivered(t, s) })
	t.Run("CrashMatrix", func(t *testing.T) {
		for _, c := range fileCrashCases(s) {
			t.Run(c.name(), func(t *testing.T) { runFileCrashCase(t, s, top, c) })
		}
	})
	for _, cut := range []bool{false, true} {
		name := map[bool]string{false: "AcceptedThen502", true: "AcceptedThenCut"}[cut]
		t.Run(name, func(t *testing.T) { s.skipGap(t, top); fileAcceptedThenFail(t, s, cut) })
	}
	t.Run("OverLimitFailsWithNoRequest", func(t *testing.T) { s.skipGap(t, top); fileOverLimit(t, s) })
	t.Run("LongTextAsFile", func(t *testing.T) { s.skipGap(t, top); longTextAsFile(t, s) })
}

// startFileRelay runs the daemon's relay in this process with cfg
// changed by tune.
func startFileRelay(t *testing.T, s Subject, f Fake, dir string, tune func(*spec.Config)) chat.RelayComponent {
	t.Helper()
	var o chat.RelayOptions
	o.MinBackoff, o.MaxBackoff = 10*time.Millisecond, 100*time.Millisecond
	o.Settle = 3 * time.Second
	cfg := s.config(f.URL(), "")
	if tune != nil {
		tune(cfg)
	}
	rc, err := chat.NewRelay(s.Provider(0), cfg, dir, testr.New(t), o)(fenceOnly{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopRelay(t, rc) })
	return rc
}

// waitSent waits until sent/ holds n messages; a message failed stops
// the wait, saying why.
func waitSent(ctx context.Context, t *testing.T, rc chat.RelayComponent, d bus.Dirs, n int) {
	t.Helper()
	waitRelay(ctx, t, rc, fmt.Sprintf("%d messages sent", n), func(st *ownership.RelayState) bool {
		if st.Failed > 0 {
			noneFailed(t, d)
			t.FailNow()
		}
		return countSent(d) == n
	})
}

// countSent counts the messages (not their files' directories) in sent/.
func countSent(d bus.Dirs) int {
	ents, err := os.ReadDir(d.Sent)
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".json") {
			n++
		}
	}
	return n
}

func filesDelivered(t *testing.T, s Subject) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f := s.Start(t, 0)
	dir, d := newBus(t)
	msgs, want := fileSession(t, d)
	publish(t, d, msgs)
	rc := startFileRelay(t, s, f, dir, nil)
	waitSent(ctx, t, rc, d, len(msgs))
	for _, b := range checkFiles(f, s.render(t), d, msgs, want) {
		t.Error(b)
	}
}

// fileCrashCases kill the relay at each step of a file part (the first
// file of f02, and the second of f03, after another file), while its
// upload is held at the service, and before the move to sent/.
func fileCrashCases(s Subject) []crashCase {
	var cs []crashCase
	steps := []string{"before-attempt", "after-attempt", "accepted", "after-done"}
	if s.FileStage {
		steps = append(steps, "staged")
	}
	for _, key := range []string{"f02/file:0", "f03/file:1"} {
		for _, st := range steps {
			cs = append(cs, crashCase{step: "file:" + st, key: key})
		}
	}
	cs = append(cs, crashCase{step: "file:after-attempt", key: "f02/file:0", held: true},
		crashCase{step: "message:before-sent", key: "f03"})
	if s.NonceWindow {
		const tiny = time.Millisecond
		cs = append(cs, crashCase{step: "file:accepted", key: "f02/file:0", nonceWindow: tiny},
			crashCase{step: "file:after-attempt", key: "f03/file:1", held: true, nonceWindow: tiny})
	}
	return cs
}

func runFileCrashCase(t *testing.T, s Subject, top string, c crashCase) {
	s.skipGap(t, top)
	ctx, cancel := context.WithTimeout(context.Background(), 2*crashWait)
	defer cancel()
	f := s.Start(t, c.nonceWindow)
	dir, d := newBus(t)
	msgs, want := fileSession(t, d)
	publish(t, d, msgs)
	watch := watchOutbox(t, d)
	second := crashThenRecover(ctx, t, top, dir, f, watch, c)
	for _, b := range checkFiles(f, s.render(t), d, msgs, want) {
		t.Error(b)
	}
	if t.Failed() {
		t.Log(second.tail())
	}
}

// An upload the service took whose answer was lost (a 502, a cut
// connection) is looked up before any re-post: the file is there once.
func fileAcceptedThenFail(t *testing.T, s Subject, cut bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f := s.Start(t, 0)
	dir, d := newBus(t)
	msgs, want := fileSession(t, d)
	publish(t, d, msgs[:1])
	rc := startFileRelay(t, s, f, dir, nil)
	waitSent(ctx, t, rc, d, 1)
	// f03 has no text: its first request is its first file's upload.
	f.AcceptThenFail(cut)
	publish(t, d, msgs[2:])
	waitSent(ctx, t, rc, d, 2)
	publish(t, d, msgs[1:2])
	waitSent(ctx, t, rc, d, 3)
	// f02 was posted after f03: its file comes last.
	want = []sentFile{want[1], want[2], want[0]}
	ordered := []bus.Message{msgs[0], msgs[2], msgs[1]}
	for _, b := range checkFiles(f, s.render(t), d, ordered, want) {
		t.Error(b)
	}
}

// A file over the service's limit fails its message before any request,
// the reason naming the file and the limit; its entry stays in files/.
func fileOverLimit(t *testing.T, s Subject) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f := s.Start(t, 0)
	dir, d := newBus(t)
	poster, err := s.Provider(0).Poster(s.config(f.URL(), ""), logr.Discard(), "")
	if err != nil {
		t.Fatal(err)
	}
	lim := poster.Files()
	if lim.MaxFiles == 0 || lim.MaxBytes <= 0 {
		t.Fatalf("the provider's file limits %+v take no file", lim)
	}
	// Sparse: a file one byte over even a 1 GiB limit costs no disk.
	entry := filepath.Join(d.Files, "big-0-big.bin")
	if err := os.WriteFile(entry, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(entry, lim.MaxBytes+1); err != nil {
		t.Fatal(err)
	}
	m := bus.Message{ID: "big", Session: "sess-big", Title: "Too big", Text: "A file over the limit.",
		Attachments: []bus.Attachment{{File: "big-0-big.bin", Name: "big.bin"}}}
	publish(t, d, []bus.Message{m})
	rc := startFileRelay(t, s, f, dir, nil)
	waitRelay(ctx, t, rc, "the message failed", func(st *ownership.RelayState) bool { return st.Failed == 1 })
	data, err := os.ReadFile(filepath.Join(d.Failed, "big.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec bus.FailedRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Reason, "attachments[0] big.bin is ") || !strings.Contains(rec.Reason, "over "+lim.Service+"'s ") {
		t.Errorf("failed/big.json says %q; want it to name attachments[0] big.bin and %s's limit", rec.Reason, lim.Service)
	}
	if ps, n := f.Places(), f.Messages(); len(ps) != 0 || n != 0 {
		t.Errorf("the fake holds %d places and %d messages, want none: no request for a message that fails its limits", len(ps), n)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Errorf("the entry left files/: %v; want it kept for a retry", err)
	}
}

// longTextAsFile: a text over the parts set posts its first part and the
// whole text as <id>.md.
func longTextAsFile(t *testing.T, s Subject) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f := s.Start(t, 0)
	dir, d := newBus(t)
	render := s.render(t)
	render.LongTextAsFile = 1
	long := crashSession(render.Limit)[2]
	long.ID, long.Session = "lt01", "sess-long"
	rd := relay.Render(long, render)
	if rd.TextFile == nil {
		t.Fatalf("the long text (%d parts) renders to no file", len(relay.Render(long, s.render(t)).Parts))
	}
	publish(t, d, []bus.Message{long})
	rc := startFileRelay(t, s, f, dir, func(c *spec.Config) { c.LongTextAsFile = 1 })
	waitSent(ctx, t, rc, d, 1)
	want := []sentFile{{name: "lt01.md", size: int64(len(rd.TextFile.Content)), sum: sumHex([]byte(rd.TextFile.Content))}}
	for _, b := range checkFiles(f, render, d, []bus.Message{long}, want) {
		t.Error(b)
	}
}
