package discord_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// upload is a file part's Upload of content; opens counts its Opens.
func upload(name, contentType string, content []byte, opens *atomic.Int32) *relay.Upload {
	sum := sha256.Sum256(content)
	return &relay.Upload{Name: name, ContentType: contentType, Size: int64(len(content)), Sum: hex.EncodeToString(sum[:]),
		Open: func() (io.ReadCloser, error) {
			if opens != nil {
				opens.Add(1)
			}
			return io.NopCloser(bytes.NewReader(content)), nil
		}}
}

func filePart(key, thread string, u *relay.Upload) relay.Part {
	p := part(key, thread, "")
	p.Upload = u
	return p
}

func TestFilesAreDiscordsLimits(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	if got := r.p.Files(); got != (relay.FileLimits{MaxBytes: fakediscord.MaxFileBytes, MaxFiles: fakediscord.MaxFiles, Service: "Discord"}) {
		t.Fatalf("Files() = %+v", got)
	}
}

// A file part is one message in the thread: the file, nothing else, no
// pings, no embeds, the part's nonce enforced, so posting it again is the
// same message.
func TestUploadIsOneMessageWithTheFile(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	th := r.thread(t, "m0/0")
	content := bytes.Repeat([]byte("a log line\n"), 300_000) // 3.3 MB
	var opens atomic.Int32
	u := upload("build.log", "text/plain; charset=utf-8", content, &opens)
	id, err := r.p.Post(ctx(t), filePart("m1/file:0", th, u))
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.p.Post(ctx(t), filePart("m1/file:0", th, u))
	if err != nil || again != id {
		t.Fatalf("the same part again = %s, %v; want %s (its nonce)", again, err, id)
	}
	in := r.f.Snapshot().In(th)
	if len(in) != 1 {
		t.Fatalf("thread holds %d messages, want 1", len(in))
	}
	m := in[0]
	if m.ID != id || m.Content != "" || m.Nonce == "" || string(m.AllowedMentions) != `{"parse":[]}` || m.Flags != 1<<2 {
		t.Errorf("stored %+v", m)
	}
	if len(m.Attachments) != 1 {
		t.Fatalf("message carries %d files, want 1", len(m.Attachments))
	}
	a := m.Attachments[0]
	if a.Name() != "build.log" || a.Size != u.Size || a.Sum != u.Sum || a.ContentType != u.ContentType {
		t.Errorf("attachment %+v, want %s %d %s %s", a, u.Name, u.Size, u.Sum, u.ContentType)
	}
	if n := opens.Load(); n != 2 {
		t.Errorf("Open called %d times for two posts; each request opens the file afresh", n)
	}
}

// An upload whose answer was lost is found, not posted again: inside the
// nonce window by its nonce, outside by the bot's file message of that
// size and name (Discord may sanitize the name: this one has a space).
func TestUploadAcceptedThenFailedIsFound(t *testing.T) {
	t.Parallel()
	for _, mode := range []fakediscord.FailMode{fakediscord.FailBadGateway, fakediscord.FailCut} {
		for _, late := range []bool{false, true} {
			t.Run(fmt.Sprintf("mode %d late %v", mode, late), func(t *testing.T) {
				t.Parallel()
				r := newRig(t, discord.Options{}, fakediscord.Options{})
				th := r.thread(t, "m0/0")
				done, err := r.p.Post(ctx(t), part("m1/0", th, "the text before the file"))
				if err != nil {
					t.Fatal(err)
				}
				r.f.AcceptThenFail(1, mode)
				p := filePart("m1/file:0", th, upload("screen shot.png", "image/png", []byte("\x89PNG not really"), nil))
				if late {
					p.FirstAttempt = time.Now().Add(-time.Hour)
				}
				_, err = r.p.Post(ctx(t), p)
				wantKind(t, err, relay.Uncertain)
				posts := r.f.Snapshot().Posts
				id, found, err := r.p.Lookup(ctx(t), p, done)
				if err != nil || !found {
					t.Fatalf("Lookup = %v, %v", found, err)
				}
				in := r.f.Snapshot().In(th)
				if len(in) != 2 || in[1].ID != id || len(in[1].Attachments) != 1 {
					t.Fatalf("thread holds %d messages; want the text and the one file, found as %s", len(in), id)
				}
				if late && r.f.Snapshot().Posts != posts {
					t.Error("a lookup outside the nonce window posted")
				}
			})
		}
	}
}

// Outside the window a lookup finds only the bot's own message with this
// one file: not a person's with the same file, not the bot's with another
// size or name.
func TestLookupOfAFileNeverPostedFindsNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	th := r.thread(t, "m0/0")
	content := []byte("report body")
	if _, err := r.f.InjectMessage(th, user, "", fakediscord.File{Name: "report.txt", Content: content}); err != nil {
		t.Fatal(err)
	}
	for key, u := range map[string]*relay.Upload{
		"m1/file:0": upload("report.txt", "text/plain", []byte("report body, longer"), nil),
		"m1/file:1": upload("other.txt", "text/plain", content, nil),
	} {
		if _, err := r.p.Post(ctx(t), filePart(key, th, u)); err != nil {
			t.Fatal(err)
		}
	}
	p := filePart("m2/file:0", th, upload("report.txt", "text/plain", content, nil))
	p.FirstAttempt = time.Now().Add(-time.Hour)
	if id, found, err := r.p.Lookup(ctx(t), p, ""); err != nil || found {
		t.Fatalf("Lookup = %s, %v, %v; want not found", id, found, err)
	}
	// A text part never stands for a file message, nor the other way round.
	tp := part("m3/0", th, "")
	tp.Text, tp.FirstAttempt = "report.txt", time.Now().Add(-time.Hour)
	if _, found, err := r.p.Lookup(ctx(t), tp, ""); err != nil || found {
		t.Fatalf("text Lookup = %v, %v; want not found", found, err)
	}
}

// A file that no longer holds the size recorded never goes out: the
// request fails and nothing is stored under the part's key.
func TestUploadOfAChangedFileStoresNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	th := r.thread(t, "m0/0")
	for name, content := range map[string][]byte{"shrank": []byte("short"), "grew": bytes.Repeat([]byte("x"), 100)} {
		u := upload(name+".txt", "text/plain", content, nil)
		u.Size = 50
		if _, err := r.p.Post(ctx(t), filePart("m1/"+name, th, u)); err == nil {
			t.Errorf("%s: Post succeeded", name)
		}
	}
	if in := r.f.Snapshot().In(th); len(in) != 0 {
		t.Fatalf("thread holds %d messages, want none", len(in))
	}
}

// A person's reply with a file: the event carries it (from the history,
// as from the gateway: both are Discord's message object), and Fetch
// downloads it from the CDN without the bot's token.
func TestReplyFilesAreFetchedWithoutTheToken(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	th := r.thread(t, "m0/0")
	shot := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 4096)...)
	reply, err := r.f.InjectMessage(th, user, "see this", fakediscord.File{Name: "shot.png", ContentType: "image/png", Content: shot})
	if err != nil {
		t.Fatal(err)
	}
	var files []inbound.RemoteFile
	err = r.p.History(ctx(t), th, "", time.Time{}, func(ev inbound.Event) error {
		if ev.ID == reply.ID {
			files = ev.Files
		}
		return nil
	})
	if err != nil || len(files) != 1 {
		t.Fatalf("History: files %+v, %v", files, err)
	}
	f := files[0]
	if f.ID == "" || f.Name != "shot.png" || f.Size != int64(len(shot)) || f.ContentType != "image/png" || f.URL == "" {
		t.Fatalf("remote file %+v", f)
	}
	var buf bytes.Buffer
	n, err := r.p.Fetch(ctx(t), f, 1<<20, &buf)
	if err != nil || n != int64(len(shot)) || !bytes.Equal(buf.Bytes(), shot) {
		t.Fatalf("Fetch = %d, %v", n, err)
	}
	if s := r.f.Snapshot(); s.Downloads != 1 || s.TokensToCDN != 0 {
		t.Fatalf("CDN saw %d downloads, %d with a token; want 1 and 0", s.Downloads, s.TokensToCDN)
	}

	t.Run("over max", func(t *testing.T) {
		if _, err := r.p.Fetch(ctx(t), f, 100, io.Discard); !errors.Is(err, inbound.ErrTooLarge) {
			t.Fatalf("Fetch of a file reported over max = %v, want ErrTooLarge", err)
		}
		unsized := f
		unsized.Size = -1
		n, err := r.p.Fetch(ctx(t), unsized, 100, io.Discard)
		if !errors.Is(err, inbound.ErrTooLarge) || n > 101 {
			t.Fatalf("Fetch of an unsized file over max = %d, %v; want ErrTooLarge after at most 101 bytes", n, err)
		}
	})
	t.Run("off the file hosts", func(t *testing.T) {
		before := r.f.Snapshot().Downloads
		for _, u := range []string{
			"https://evil.example/attachments/1/2/shot.png",
			"http://cdn.discordapp.com/attachments/1/2/shot.png", // not https
			strings.Replace(f.URL, "http://", "http://user:pw@", 1),
			"://nonsense",
		} {
			g := f
			g.URL = u
			_, err := r.p.Fetch(ctx(t), g, 1<<20, io.Discard)
			var pe *inbound.PermanentError
			if !errors.As(err, &pe) || strings.Contains(err.Error(), "/attachments/") {
				t.Errorf("Fetch(%s) = %v; want a PermanentError naming the host only", u, err)
			}
		}
		if s := r.f.Snapshot(); s.Downloads != before {
			t.Errorf("a refused URL was requested")
		}
	})
	t.Run("deleted", func(t *testing.T) {
		g := f
		g.URL = strings.Replace(f.URL, "/shot.png", "/gone.png", 1)
		var pe *inbound.PermanentError
		if _, err := r.p.Fetch(ctx(t), g, 1<<20, io.Discard); !errors.As(err, &pe) {
			t.Fatalf("Fetch of a 404 = %v, want a PermanentError", err)
		}
	})
}

// BenchmarkUpload5MiB posts a 5 MiB file part to the fake, from a file on
// disk as the relay opens it.
func BenchmarkUpload5MiB(b *testing.B) {
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{token}, Channels: []string{parent}})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	p, err := discord.NewPoster(&spec.DiscordConfig{BotToken: spec.NewSecret(token), ParentChannelID: parent, APIURL: f.URL()}, discord.Options{})
	if err != nil {
		b.Fatal(err)
	}
	content := bytes.Repeat([]byte("0123456789abcdef"), 5<<20/16)
	path := filepath.Join(b.TempDir(), "five.bin")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		b.Fatal(err)
	}
	u := upload("five.bin", "application/octet-stream", content, nil)
	u.Open = func() (io.ReadCloser, error) { return os.Open(path) }
	b.SetBytes(int64(len(content)))
	for i := range b.N {
		if _, err := p.Post(context.Background(), relay.Part{Key: fmt.Sprintf("b%d/file:0", i), Thread: parent, Upload: u}); err != nil {
			b.Fatal(err)
		}
	}
}
