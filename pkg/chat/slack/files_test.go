package slack_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/relay"
)

// filePart is a file part of content in thread, whose Stage records the
// token in *staged after calling check (nil: none).
func filePart(key, thread string, content []byte, staged *string, check func(token string)) relay.Part {
	sum := sha256.Sum256(content)
	return relay.Part{Key: key, Thread: thread, FirstAttempt: time.Now(),
		Upload: &relay.Upload{Name: "report.txt", ContentType: "text/plain; charset=utf-8", Size: int64(len(content)),
			Sum:  hex.EncodeToString(sum[:]),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(content)), nil }},
		Stage: func(_ context.Context, token string) error {
			if check != nil {
				check(token)
			}
			*staged = token
			return nil
		},
	}
}

// A file part is uploaded and shared in its thread as one message, whose
// ts is the part's remote id; its file id is staged before the upload,
// and the lookup by that id finds the same message.
func TestPostFile(t *testing.T) {
	e := setup(t, slack.Options{})
	root := post(t, e, "m/0", "", "root")
	content := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	var staged string
	part := filePart("m/file:0", root, content, &staged, func(token string) {
		// Durable before anything can make the file visible: the
		// ticket is there, its bytes not yet.
		sn := e.f.Snapshot()
		if len(sn.Files) != 1 || sn.Files[0].ID != token || sn.Files[0].Uploaded || sn.Files[0].Completed {
			t.Errorf("staged %q with files %+v", token, sn.Files)
		}
	})
	ts, err := e.p.Post(ctx(t), part)
	if err != nil {
		t.Fatal(err)
	}
	sn := e.f.Snapshot()
	f := sn.Files[0]
	if staged != f.ID || ts != f.MessageTS || f.ThreadTS != root || f.Sum != part.Upload.Sum || f.Size != part.Upload.Size ||
		f.ContentType != part.Upload.ContentType || f.Completions != 1 || f.Name != "report.txt" {
		t.Fatalf("Post = %s, staged %s, file %+v", ts, staged, f)
	}
	part.Staged = staged
	got, found, err := e.p.Lookup(ctx(t), part, root)
	if err != nil || !found || got != ts {
		t.Fatalf("Lookup = %s, %v, %v; want %s", got, found, err, ts)
	}
	// Nothing staged: never uploaded, so not found, without a request.
	before := len(e.f.Requests())
	part.Staged = ""
	if _, found, err := e.p.Lookup(ctx(t), part, root); found || err != nil || len(e.f.Requests()) != before {
		t.Fatalf("Lookup with nothing staged: %v, %v", found, err)
	}
}

// A completion whose answer was lost is found by its file id; an upload
// never completed is proven not shared (files.info does not find it); a
// completion refused by a rate limit shared nothing.
func TestFileLookup(t *testing.T) {
	e := setup(t, slack.Options{})
	root := post(t, e, "m/0", "", "root")
	var staged string
	e.f.AcceptThenFail(1, fakeslack.FailCut)
	part := filePart("m/file:0", root, []byte("hello"), &staged, nil)
	_, err := e.p.Post(ctx(t), part)
	relayErr(t, err, relay.Uncertain)
	part.Staged = staged
	ts, found, err := e.p.Lookup(ctx(t), part, root)
	if sn := e.f.Snapshot(); err != nil || !found || ts != sn.Files[0].MessageTS || len(sn.Thread(channel, root)) != 1 {
		t.Fatalf("Lookup = %s, %v, %v; files %+v", ts, found, err, sn.Files)
	}

	e.f.RateLimitNext(1, time.Second)
	part = filePart("m/file:1", root, []byte("again"), &staged, nil)
	_, err = e.p.Post(ctx(t), part)
	relayErr(t, err, relay.RateLimited)
	part.Staged = staged
	if _, found, err := e.p.Lookup(ctx(t), part, root); found || err != nil {
		t.Fatalf("Lookup of a file never completed = %v, %v", found, err)
	}
	if sn := e.f.Snapshot(); len(sn.Thread(channel, root)) != 1 {
		t.Fatalf("%d messages in the thread", len(sn.Thread(channel, root)))
	}
}

// Slack shares a completed file asynchronously: Post waits for the share
// a while, and past that the part is uncertain; the lookup then is an
// error, never "not found", until the share shows.
func TestFileShareLag(t *testing.T) {
	e := setup(t, slack.Options{ShareWait: 300 * time.Millisecond})
	root := post(t, e, "m/0", "", "root")
	var staged string
	e.f.SetShareLag(100 * time.Millisecond)
	if _, err := e.p.Post(ctx(t), filePart("m/file:0", root, []byte("a"), &staged, nil)); err != nil {
		t.Fatalf("Post with a short share lag: %v", err)
	}
	e.f.SetShareLag(time.Hour)
	part := filePart("m/file:1", root, []byte("b"), &staged, nil)
	_, err := e.p.Post(ctx(t), part)
	relayErr(t, err, relay.Uncertain)
	part.Staged = staged
	_, found, err := e.p.Lookup(ctx(t), part, root)
	if found {
		t.Fatal("found a share that is not there")
	}
	relayErr(t, err, relay.Uncertain)
	e.f.SetShareLag(0)
	ts, found, err := e.p.Lookup(ctx(t), part, root)
	if sn := e.f.Snapshot(); err != nil || !found || ts != sn.Files[1].MessageTS || sn.Files[1].Completions != 1 {
		t.Fatalf("Lookup = %s, %v, %v; files %+v", ts, found, err, sn.Files)
	}
}

// A file shared and then deleted (only a completed file can be) was
// posted: found, its thread standing in for its message.
func TestFileLookupDeleted(t *testing.T) {
	e := setup(t, slack.Options{})
	root := post(t, e, "m/0", "", "root")
	var staged string
	part := filePart("m/file:0", root, []byte("gone soon"), &staged, nil)
	if _, err := e.p.Post(ctx(t), part); err != nil {
		t.Fatal(err)
	}
	if !e.f.DeleteFile(staged) {
		t.Fatal("no file to delete")
	}
	part.Staged = staged
	if ts, found, err := e.p.Lookup(ctx(t), part, root); err != nil || !found || ts != root {
		t.Fatalf("Lookup of a deleted file = %s, %v, %v", ts, found, err)
	}
}

// Content that is not the size recorded is not completed: the upload
// fails before the file is shared.
func TestFileChangedSize(t *testing.T) {
	e := setup(t, slack.Options{})
	root := post(t, e, "m/0", "", "root")
	part := filePart("m/file:0", root, []byte("short"), new(string), nil)
	part.Upload.Size = 50
	_, err := e.p.Post(ctx(t), part)
	relayErr(t, err, relay.Uncertain)
	if sn := e.f.Snapshot(); sn.Files[0].Uploaded || sn.Files[0].Completions != 0 || len(sn.Thread(channel, root)) != 0 {
		t.Fatalf("file %+v", sn.Files[0])
	}
}

// A Stage that fails stops the part before its upload.
func TestFileStageFails(t *testing.T) {
	e := setup(t, slack.Options{})
	root := post(t, e, "m/0", "", "root")
	part := filePart("m/file:0", root, []byte("a"), new(string), nil)
	part.Stage = func(context.Context, string) error { return errors.New("disk full") }
	if _, err := e.p.Post(ctx(t), part); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Post = %v", err)
	}
	if sn := e.f.Snapshot(); sn.Files[0].Uploaded || sn.Files[0].Completed {
		t.Fatalf("file %+v", sn.Files[0])
	}
}

// A reply's files are fetched from their url_private_download with the
// bot token; over the limit is ErrTooLarge; a URL on any other host is
// refused without a request.
func TestFetch(t *testing.T) {
	e := setup(t, slack.Options{})
	root := post(t, e, "m/0", "", "root")
	content := bytes.Repeat([]byte{0xab}, 5000)
	m, err := e.f.InjectMessageWithFiles(channel, "U0HUMAN", "look", root, fakeslack.Attachment{Name: "dump.bin", Content: content})
	if err != nil {
		t.Fatal(err)
	}
	var files []inbound.RemoteFile
	err = e.p.History(ctx(t), root, "", time.Now().Add(-time.Hour), func(ev inbound.Event) error {
		if ev.ID == m.TS {
			files = ev.Files
		}
		return nil
	})
	if err != nil || len(files) != 1 || files[0].Name != "dump.bin" || files[0].Size != 5000 || files[0].ID != e.f.Snapshot().Files[0].ID ||
		!strings.HasPrefix(files[0].URL, e.f.URL()+"/files-pri/") {
		t.Fatalf("history files %+v, %v", files, err)
	}
	var buf bytes.Buffer
	if n, err := e.p.Fetch(ctx(t), files[0], 5000, &buf); err != nil || n != 5000 || !bytes.Equal(buf.Bytes(), content) {
		t.Fatalf("Fetch = %d, %v", n, err)
	}
	if _, err := e.p.Fetch(ctx(t), files[0], 4999, io.Discard); !errors.Is(err, inbound.ErrTooLarge) {
		t.Fatalf("Fetch over the limit = %v", err)
	}
	// Without files:read Slack sends the token to sign in: transient,
	// the reply stays owed.
	e.f.SetScopeGranted("files:read", false)
	_, err = e.p.Fetch(ctx(t), files[0], 5000, io.Discard)
	var pe *inbound.PermanentError
	if err == nil || errors.As(err, &pe) || !strings.Contains(err.Error(), "files:read") {
		t.Fatalf("Fetch without files:read = %v", err)
	}
	noToken(t, err)
	e.f.SetScopeGranted("files:read", true)

	var hits atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("x"))
	}))
	defer elsewhere.Close()
	for _, u := range []string{elsewhere.URL + "/files-pri/T-F1/download/x", "https://files.slack.com/files-pri/T-F1/download/x"} {
		_, err := e.p.Fetch(ctx(t), inbound.RemoteFile{ID: "F1", Name: "x", URL: u}, 10, io.Discard)
		if !errors.As(err, &pe) {
			t.Errorf("Fetch of %s = %v, want a PermanentError", u, err)
		}
		noToken(t, err)
	}
	if hits.Load() != 0 {
		t.Fatalf("%d requests to another host", hits.Load())
	}
	// A file named by id only (Slack Connect's check_file_info) is
	// found with files.info first.
	n, err := e.p.Fetch(ctx(t), inbound.RemoteFile{ID: files[0].ID, Name: "dump.bin", Size: -1}, 5000, io.Discard)
	if err != nil || n != 5000 {
		t.Fatalf("Fetch by id = %d, %v", n, err)
	}
}

// A Socket Mode message with files (subtype file_share) is a person's
// plain reply carrying them.
func TestEventOfFiles(t *testing.T) {
	const ch, root = "C1", "1700000000.000100"
	files := []slackapi.File{
		{ID: "F1", Name: "shot.png", Mimetype: "image/png", Size: 12, URLPrivateDownload: "https://files.slack.com/files-pri/T1-F1/download/shot.png"},
		{ID: "F2", Title: "connect.txt", FileAccess: "check_file_info"},
	}
	e := slackevents.MessageEvent{Channel: ch, TimeStamp: "1700000001.000200", ThreadTimeStamp: root, User: "U1", SubType: "file_share", Text: "see"}
	e.Message = &slackapi.Msg{Timestamp: e.TimeStamp, Files: files}
	ev := slack.EventOf(&e, ch, "UBOT")
	want := []inbound.RemoteFile{
		{ID: "F1", Name: "shot.png", Size: 12, ContentType: "image/png", URL: files[0].URLPrivateDownload},
		{ID: "F2", Name: "connect.txt", Size: -1},
	}
	if ev.Kind != inbound.Plain || ev.Place != root || ev.Bot || len(ev.Files) != 2 || ev.Files[0] != want[0] || ev.Files[1] != want[1] {
		t.Fatalf("event %+v", ev)
	}
}
