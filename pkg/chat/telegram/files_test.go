package telegram

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// upload is a file part's Upload of content, counting its opens.
func upload(name string, content []byte, opens *int) *relay.Upload {
	s := sha256.Sum256(content)
	return &relay.Upload{Name: name, ContentType: "application/octet-stream", Size: int64(len(content)), Sum: hex.EncodeToString(s[:]),
		Open: func() (io.ReadCloser, error) {
			if opens != nil {
				*opens++
			}
			return io.NopCloser(bytes.NewReader(content)), nil
		}}
}

func filePart(key, thread, name string, content []byte) relay.Part {
	return relay.Part{Key: key, Thread: thread, Upload: upload(name, content, nil)}
}

// A file part is one sendDocument in the session's topic (with topics)
// or under its root (without), its caption the file's name, mention-safe.
func TestPostUploadsADocument(t *testing.T) {
	for _, forum := range []bool{true, false} {
		t.Run(map[bool]string{true: "topics", false: "replies"}[forum], func(t *testing.T) {
			f := startFake(t, forum)
			p := newPoster(t, f)
			root := post(t, p, "s/root", "", "session")
			thread, err := p.StartThread(ctxFor(t), root, "session")
			if err != nil {
				t.Fatal(err)
			}
			content := bytes.Repeat([]byte{0, 1, 2, 3}, 1<<20) // 4 MiB
			opens := 0
			part := relay.Part{Key: "m/file:0", Thread: thread, Upload: upload("@everyone.bin", content, &opens)}
			id, err := p.Post(ctxFor(t), part)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := f.Snapshot().Message(faketelegram.DefaultChatID, id64(t, id))
			if m.Document == nil || m.Document.FileName != "@everyone.bin" || m.Document.Sum != part.Upload.Sum || m.Document.FileSize != int64(len(content)) {
				t.Fatalf("stored %+v", m.Document)
			}
			if m.Caption != "＠everyone.bin" || m.Thread != id64(t, thread) || m.Pings() || opens != 1 {
				t.Fatalf("message %+v, opened %d times", m, opens)
			}
		})
	}
}

// The id probe of a file part asks editMessageCaption with its exact
// caption: "not modified" proves the document ours; a text of the bot's
// ("no caption") and someone else's message ("can't be edited") are
// passed; a confirmed id is never asked.
func TestLookupFindsAnUploadWhoseAnswerWasLost(t *testing.T) {
	f := startFake(t, true)
	p := newPoster(t, f)
	root := post(t, p, "s/root", "", "session")
	thread, err := p.StartThread(ctxFor(t), root, "session")
	if err != nil {
		t.Fatal(err)
	}
	before := post(t, p, "m/0", thread, "the text part")
	confirmed := filePart("k/file:0", thread, "report.pdf", []byte("an older report"))
	older, err := p.Post(ctxFor(t), confirmed)
	if err != nil {
		t.Fatal(err)
	}
	f.AcceptThenFail(1, faketelegram.FailCut)
	part := filePart("m/file:0", thread, "report.pdf", []byte("%PDF the report"))
	part.Confirmed = func(id string) bool { return id == older }
	if _, err := p.Post(ctxFor(t), part); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}
	if _, err := f.InjectMessage(faketelegram.Inbound{From: faketelegram.User{ID: 42}, Thread: id64(t, thread), Text: "someone else"}); err != nil {
		t.Fatal(err)
	}
	id, found, err := newPoster(t, f).Lookup(ctxFor(t), part, before)
	if err != nil || !found {
		t.Fatalf("Lookup = %q %v %v, want found", id, found, err)
	}
	sn := f.Snapshot()
	m, _ := sn.Message(faketelegram.DefaultChatID, id64(t, id))
	// In a thread a "not modified" is marked and restored to learn where
	// it lies (whereThis): the caption is the part's again.
	if m.Document == nil || m.Document.Sum != part.Upload.Sum || m.Caption != "report.pdf" {
		t.Errorf("found %+v", m)
	}
	if o, _ := sn.Message(faketelegram.DefaultChatID, id64(t, older)); len(o.Edits) != 0 {
		t.Errorf("the probe edited a confirmed document: %+v", o)
	}
	// And a text part's probe passes the bot's documents ("no text").
	f.FailBefore("sendMessage", 1, faketelegram.FailCut)
	text := relay.Part{Key: "n/0", Thread: thread, Text: "lost"}
	if _, err := p.Post(ctxFor(t), text); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}
	text.Confirmed = func(string) bool { return false }
	if _, found, err := newPoster(t, f).Lookup(ctxFor(t), text, before); err != nil || found {
		t.Fatalf("text Lookup = %v %v, want not found", found, err)
	}
}

// An upload the service never stored is not found: it may be posted.
func TestLookupUploadNotPosted(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	root := post(t, p, "s/root", "", "session")
	f.FailBefore("sendDocument", 1, faketelegram.FailCut)
	part := filePart("m/file:0", root, "a.txt", []byte("a"))
	if _, err := p.Post(ctxFor(t), part); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}
	if _, found, err := newPoster(t, f).Lookup(ctxFor(t), part, root); err != nil || found {
		t.Fatalf("Lookup = %v %v, want not found", found, err)
	}
}

// Fetch: getFile, then the download with the bot's token, whose URL
// never reaches an error; over max is ErrTooLarge, a size known too
// large is not asked at all.
func TestFetch(t *testing.T) {
	f := startFake(t, true)
	p := newPoster(t, f)
	content := []byte("a screenshot, as bytes")
	m, err := f.InjectMessage(faketelegram.Inbound{From: faketelegram.User{ID: 42}, File: &faketelegram.File{Name: "shot.png", Content: content}})
	if err != nil {
		t.Fatal(err)
	}
	rf := inbound.RemoteFile{ID: m.Document.FileID, Name: "shot.png", Size: m.Document.FileSize}
	var got bytes.Buffer
	if n, err := p.Fetch(ctxFor(t), rf, 1<<20, &got); err != nil || n != int64(len(content)) || !bytes.Equal(got.Bytes(), content) {
		t.Fatalf("Fetch = %d %v, %q", n, err, got.Bytes())
	}
	if _, err := p.Fetch(ctxFor(t), rf, int64(len(content))-1, io.Discard); !errors.Is(err, inbound.ErrTooLarge) {
		t.Fatalf("Fetch over max = %v, want ErrTooLarge", err)
	}
	unknown := rf
	unknown.Size = -1 // the service gave none: getFile's size decides
	if _, err := p.Fetch(ctxFor(t), unknown, 3, io.Discard); !errors.Is(err, inbound.ErrTooLarge) {
		t.Fatalf("Fetch over max, size unknown = %v, want ErrTooLarge", err)
	}
	gets := f.Snapshot().FileGets
	big := rf
	big.Size = 11 << 20
	if _, err := p.Fetch(ctxFor(t), big, 10<<20, io.Discard); !errors.Is(err, inbound.ErrTooLarge) {
		t.Fatalf("Fetch of a file known too large = %v, want ErrTooLarge", err)
	}
	big.Size = 21 << 20
	var perm *inbound.PermanentError
	if _, err := p.Fetch(ctxFor(t), big, 50<<20, io.Discard); !errors.As(err, &perm) {
		t.Fatalf("Fetch over the service's 20 MB = %v, want permanent", err)
	}
	if sn := f.Snapshot(); sn.FileGets != gets {
		t.Fatalf("getFile asked for a file known too large (%d, was %d)", sn.FileGets, gets)
	}
	if _, err := p.Fetch(ctxFor(t), inbound.RemoteFile{ID: rf.ID, URL: "https://example.com/x"}, 1<<20, io.Discard); !errors.As(err, &perm) {
		t.Fatalf("Fetch of a URL = %v, want permanent", err)
	}
	if _, err := p.Fetch(ctxFor(t), inbound.RemoteFile{ID: "nope", Size: -1}, 1<<20, io.Discard); !errors.As(err, &perm) {
		t.Fatalf("Fetch of an unknown file_id = %v, want permanent", err)
	}

	// A download past max is cut after max+1 bytes, whatever getFile said.
	file, err := p.api.GetFile(ctxFor(t), &tgbot.GetFileParams{FileID: rf.ID})
	if err != nil {
		t.Fatal(err)
	}
	good, err := p.fileLink(file.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	var cut bytes.Buffer
	if n, err := p.download(ctxFor(t), good, 4, &cut); !errors.Is(err, inbound.ErrTooLarge) || n != 5 || cut.Len() != 5 {
		t.Fatalf("download over max = %d %v (%d bytes written), want ErrTooLarge after 5", n, err, cut.Len())
	}
	for _, bad := range []string{"", "/etc/passwd", "documents/../../x", "documents/a?b"} {
		if _, err := p.fileLink(bad); err == nil {
			t.Errorf("fileLink(%q) took a path outside the file store", bad)
		}
	}

	// A download that fails (a path the host does not serve, a host that
	// cannot be reached) is transient, and its error does not carry the
	// URL, so not the token.
	link := f.URL() + "/file/bot" + f.Token() + "/documents/none"
	if _, err := p.download(ctxFor(t), link, 1<<20, io.Discard); err == nil || strings.Contains(err.Error(), f.Token()) {
		t.Fatalf("download of a path not served = %v, want an error without the token", err)
	}
	f.Close()
	for _, l := range []string{link, "http://127.0.0.1:1/file/bot" + f.Token() + "/x"} {
		_, err := p.download(ctxFor(t), l, 1<<20, io.Discard)
		if err == nil || strings.Contains(err.Error(), f.Token()) || strings.Contains(err.Error(), "/file/bot") {
			t.Fatalf("download from a host that is gone = %v, want an error without the URL", err)
		}
	}
}

// zeros reads n zero bytes without holding them.
type zeros struct{ n int64 }

func (z *zeros) Read(b []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(b)), z.n)
	clear(b[:k])
	z.n -= k
	return int(k), nil
}

func (z *zeros) Close() error { return nil }

// A 5 MiB upload is streamed: the poster never holds the file whole
// (the client writes the multipart body through a pipe as it reads the
// entry). Measured as the bytes allocated, client and a service that
// discards the body together, while it goes.
func TestUploadIsStreamed(t *testing.T) {
	const size = 5 << 20
	var got int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		atomic.StoreInt64(&got, n)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true,"result":{"message_id":5,"date":1,"chat":{"id":-1001000000001,"type":"supergroup"}}}`)
	}))
	defer srv.Close()
	p, err := NewPoster(&spec.TelegramConfig{BotToken: spec.NewSecret(faketelegram.DefaultToken), ChatID: chatID, APIURL: srv.URL, PostsPerMinute: spec.MaxPostsPerMinute}, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	part := relay.Part{Key: "m/file:0", Upload: &relay.Upload{Name: "big.bin", ContentType: "application/octet-stream", Size: size,
		Open: func() (io.ReadCloser, error) { return &zeros{n: size}, nil }}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := p.Post(ctxFor(t), part); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d MiB upload allocated %d KiB (body %d bytes)", size>>20, alloc>>10, atomic.LoadInt64(&got))
	if atomic.LoadInt64(&got) < size || alloc > size/2 {
		t.Fatalf("upload of %d bytes sent %d and allocated %d bytes: not streamed", size, got, alloc)
	}
}
