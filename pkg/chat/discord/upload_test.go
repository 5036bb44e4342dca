package discord

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// zeros reads n zero bytes without holding them.
type zeros struct{ left int64 }

func (z *zeros) Read(b []byte) (int, error) {
	if z.left == 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > z.left {
		b = b[:z.left]
	}
	clear(b)
	z.left -= int64(len(b))
	return len(b), nil
}

func (z *zeros) Close() error { return nil }

// An upload streams the file: posting 8 MiB allocates a small fraction of
// it in the poster, and the request says its exact length up front (no
// chunking), with the file in files[0] after payload_json.
func TestUploadIsStreamed(t *testing.T) {
	const size = 8 << 20
	var got struct {
		length     int64
		parts      []string
		fileBytes  int64
		filename   string
		partCTypes []string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.length = r.ContentLength
		_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			got.parts = append(got.parts, p.FormName())
			got.partCTypes = append(got.partCTypes, p.Header.Get("Content-Type"))
			n, _ := io.Copy(io.Discard, p)
			if p.FileName() != "" {
				got.fileBytes, got.filename = n, p.FileName()
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"42"}`)
	}))
	defer srv.Close()
	p, err := NewPoster(&spec.DiscordConfig{BotToken: spec.NewSecret("tok"), ParentChannelID: "1", APIURL: srv.URL}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	part := relay.Part{Key: "m1/file:0", Thread: "7", Upload: &relay.Upload{Name: `big "one".bin`, ContentType: "application/octet-stream", Size: size,
		Open: func() (io.ReadCloser, error) { return &zeros{left: size}, nil }}}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	id, err := p.Post(context.Background(), part)
	runtime.ReadMemStats(&after)
	if err != nil || id != "42" {
		t.Fatalf("Post = %s, %v", id, err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("posting %d bytes allocated %d bytes (poster and test server together)", size, alloc)
	if alloc > size/4 {
		t.Errorf("posting %d bytes allocated %d: the file is held, not streamed", size, alloc)
	}
	if len(got.parts) != 2 || got.parts[0] != "payload_json" || got.parts[1] != "files[0]" || got.partCTypes[0] != "application/json" {
		t.Errorf("parts %v (%v), want payload_json then files[0]", got.parts, got.partCTypes)
	}
	if got.fileBytes != size || got.filename != `big "one".bin` || got.length <= size {
		t.Errorf("file %q of %d bytes in a body of length %d", got.filename, got.fileBytes, got.length)
	}
}
