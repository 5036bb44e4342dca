package providertest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/inbound"
)

// The inbound file cases (DESIGN 5, "Files"): a reply with a file lands
// once, beside its file, byte for byte what the user attached; a file
// over maxInboundFileBytes is listed skipped with its size and not
// fetched; and the process SIGKILLed at each step of such a landing (the
// file fetched into its stage, the reply staged, recorded, the files
// published, the reply published), then restarted, leaves the reply and
// its file in the inbox exactly once, no stage behind, one 👀.
func inboundFiles(t *testing.T, s Subject, top string) {
	t.Run("Lands", func(t *testing.T) {
		r := landReplyWithFile(t, s, top, screenshot(), 0, "")
		r.checkLanded(t)
	})
	t.Run("OverLimitSkipped", func(t *testing.T) {
		f := screenshot()
		const limit = 64 << 10
		r := landReplyWithFile(t, s, top, f, limit, "")
		if len(r.m.Files) != 1 {
			t.Fatalf("the reply lists %d files, want 1: %+v", len(r.m.Files), r.m)
		}
		got := r.m.Files[0]
		if got.Size != int64(len(f.Content)) || got.Path != "" || !strings.Contains(got.Skipped, "over maxInboundFileBytes 64 KiB") {
			t.Fatalf("the file over the limit is listed %+v; want skipped with its size %d", got, len(f.Content))
		}
		if _, err := os.Lstat(filepath.Join(r.sessionDir, bus.InboxFilesDir(r.file))); !os.IsNotExist(err) {
			t.Fatalf("a reply whose only file was skipped has a files directory: %v", err)
		}
	})
	for _, step := range []string{inbound.StepFetched, inbound.StepStaged, inbound.StepRecorded, inbound.StepFilesPublished, inbound.StepPublished} {
		t.Run("Crash/"+step, func(t *testing.T) {
			r := landReplyWithFile(t, s, top, screenshot(), 0, step)
			r.checkLanded(t)
		})
	}
}

// screenshot is the file the cases attach: binary, larger than one read.
func screenshot() AttachedFile {
	content := make([]byte, 100<<10)
	copy(content, "\x89PNG\r\n\x1a\n")
	for i := 8; i < len(content); i++ {
		content[i] = byte(i*7 + i>>8)
	}
	return AttachedFile{Name: "screenshot.png", ContentType: "image/png", Content: content}
}

// landedReply is a reply with a file as the inbox holds it at the end.
type landedReply struct {
	f          AttachedFile
	m          bus.InboxMessage
	file       string // its inbox file's name
	sessionDir string
}

// landReplyWithFile runs a session, replies in it with f while no relay
// runs, and starts one that lands the reply: killed first at step of its
// landing when step is set, then started again. limit, when set, is the
// config's maxInboundFileBytes. It returns once the reply is published
// with nothing staged and has exactly one 👀.
func landReplyWithFile(t *testing.T, s Subject, top string, f AttachedFile, limit int64, step string) landedReply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), crashWait)
	defer cancel()
	ir := s.Start(t, 0)
	dir, d := newBus(t)
	open := crashSession(s.render(t).Limit)[0]
	publish(t, d, []bus.Message{open})
	env := append(childEnvOf(ir), "RELAY_INBOUND_USER="+ir.User())
	if limit > 0 {
		env = append(env, "RELAY_MAX_INBOUND_FILE="+strconv.FormatInt(limit, 10))
	}

	first := startChild(t, top, dir, env...)
	place, err := sessionPlace(ctx, ir)
	if err != nil {
		t.Fatalf("no thread: %v", err)
	}
	if err := watchOutbox(t, d).waitEmpty(ctx, first); err != nil {
		t.Fatal(err)
	}
	first.kill(t)
	const text = "here is what I see"
	id, err := ir.ReplyWithFile(place, text, f)
	if err != nil {
		t.Fatal(err)
	}
	if step != "" {
		crashed := startChild(t, top, dir, append(env, "RELAY_CRASH_AT="+step, "RELAY_CRASH_KEY="+id, "RELAY_CRASH_MODE=crash")...)
		if _, err := crashed.waitLine(ctx, "STEP "+step+" "+id); err != nil {
			t.Fatal(err)
		}
		crashed.kill(t)
	}

	sessionDir := filepath.Join(d.Inbox, open.Session)
	w, err := dirwatch.New()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	changes, stop, err := w.Subscribe(sessionDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	last := startChild(t, top, dir, env...)
	var json string
	for {
		published, staged := inboxNames(t, sessionDir)
		json = ""
		for _, n := range published {
			if strings.HasSuffix(n, ".json") {
				json = n
			}
		}
		if json != "" && len(staged) == 0 {
			break
		}
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("inbox after the restart: published %v, staged %v (%s)", published, staged, last.tail())
		}
	}
	if err := ir.WaitEyes(ctx, place, id, 1); err != nil {
		t.Fatalf("the reply has not exactly one 👀: %v (%s)", err, last.tail())
	}
	last.kill(t)
	published, staged := inboxNames(t, sessionDir)
	var jsons []string
	for _, n := range published {
		if strings.HasSuffix(n, ".json") {
			jsons = append(jsons, n)
		}
	}
	if len(jsons) != 1 || len(staged) != 0 || jsons[0] != json || !strings.HasSuffix(json, "-"+id+".json") {
		t.Fatalf("inbox: published %v, staged %v; want one reply, %s", published, staged, id)
	}
	data, err := os.ReadFile(filepath.Join(sessionDir, json))
	if err != nil {
		t.Fatal(err)
	}
	m, err := bus.DecodeInbox(data)
	if err != nil || m.ID != id || m.Text != text || m.User != ir.User() || m.Session != open.Session {
		t.Fatalf("inbox file %s: %+v, %v", data, m, err)
	}
	return landedReply{f: f, m: m, file: json, sessionDir: sessionDir}
}

// checkLanded checks that r's file landed whole: listed with its name,
// size and path, its directory 0700 holding only it, 0600, and its
// content exactly what was attached.
func (r landedReply) checkLanded(t *testing.T) {
	t.Helper()
	if len(r.m.Files) != 1 {
		t.Fatalf("the reply lists %d files, want 1: %+v", len(r.m.Files), r.m)
	}
	got, dir := r.m.Files[0], bus.InboxFilesDir(r.file)
	if got.Name != r.f.Name || got.Skipped != "" || got.Size != int64(len(r.f.Content)) || got.Path != dir+"/"+r.f.Name {
		t.Fatalf("the file is listed %+v; want %s, %d bytes, at %s/%s", got, r.f.Name, len(r.f.Content), dir, r.f.Name)
	}
	ents, err := os.ReadDir(filepath.Join(r.sessionDir, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != r.f.Name {
		t.Fatalf("the files directory holds %v; want just %s", ents, r.f.Name)
	}
	for path, mode := range map[string]os.FileMode{filepath.Join(r.sessionDir, dir): os.ModeDir | 0o700, filepath.Join(r.sessionDir, got.Path): 0o600} {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != mode {
			t.Fatalf("%s: mode %v, want %v", path, fi.Mode(), mode)
		}
	}
	data, err := os.ReadFile(filepath.Join(r.sessionDir, got.Path))
	if err != nil {
		t.Fatal(err)
	}
	if sum(data) != sum(r.f.Content) {
		t.Fatalf("the landed file is %d bytes with sum %s; want %d bytes with sum %s", len(data), sum(data), len(r.f.Content), sum(r.f.Content))
	}
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
