package discord

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/spec"
)

// The bot downloads only from Discord's CDN over https or, when apiURL is
// set, from the apiURL's own scheme and host only.
func TestFileHost(t *testing.T) {
	for _, c := range []struct {
		apiURL, url string
		ok          bool
	}{
		{"", "https://cdn.discordapp.com/attachments/1/2/a.png?ex=1&is=2&hm=3", true},
		{"", "https://media.discordapp.net/attachments/1/2/a.png", true},
		{"", "https://CDN.discordapp.com:443/attachments/1/2/a.png", true},
		{"", "http://cdn.discordapp.com/attachments/1/2/a.png", false},
		{"", "https://cdn.discordapp.com:8443/attachments/1/2/a.png", false},
		{"", "https://cdn.discordapp.com.evil.example/a.png", false},
		{"", "https://evil.example/cdn.discordapp.com/a.png", false},
		{"", "https://discord.com/api/v9/users/@me", false},
		{"", "https://u:p@cdn.discordapp.com/a.png", false},
		{"http://127.0.0.1:5000", "http://127.0.0.1:5000/attachments/1/2/a.png", true},
		{"http://127.0.0.1:5000", "https://cdn.discordapp.com/attachments/1/2/a.png", false},
		{"http://127.0.0.1:5000", "http://127.0.0.1:5001/attachments/1/2/a.png", false},
		{"http://127.0.0.1:5000", "https://127.0.0.1:5000/attachments/1/2/a.png", false},
	} {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		p := &Poster{cfg: &spec.DiscordConfig{APIURL: c.apiURL}}
		if got := p.fileHost(u); got != c.ok {
			t.Errorf("apiURL %q: fileHost(%s) = %v, want %v", c.apiURL, c.url, got, c.ok)
		}
	}
}

// A redirect off the file hosts is not followed: nothing is asked of the
// other host, and the file is refused for good.
func TestFetchFollowsNoRedirectOffTheFileHosts(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Error("a download carried an Authorization header")
		}
		http.Redirect(w, r, other.URL+"/a.png", http.StatusFound)
	}))
	defer api.Close()
	p, err := NewPoster(&spec.DiscordConfig{BotToken: spec.NewSecret("tok"), ParentChannelID: "1", APIURL: api.URL}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Fetch(context.Background(), inbound.RemoteFile{ID: "2", Name: "a.png", Size: -1, URL: api.URL + "/attachments/1/2/a.png"}, 1<<20, io.Discard)
	var pe *inbound.PermanentError
	if !errors.As(err, &pe) || elsewhere.Load() != 0 {
		t.Fatalf("Fetch = %v, other host asked %d times; want a PermanentError and none", err, elsewhere.Load())
	}
}

// A download without a Content-Length (chunked) stops one byte past max:
// ErrTooLarge, the rest never read.
func TestFetchStopsPastMax(t *testing.T) {
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for range 100 {
			_, _ = w.Write(make([]byte, 1000))
			w.(http.Flusher).Flush()
		}
	}))
	defer cdn.Close()
	p, err := NewPoster(&spec.DiscordConfig{BotToken: spec.NewSecret("tok"), ParentChannelID: "1", APIURL: cdn.URL}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := inbound.RemoteFile{ID: "2", Name: "a.bin", Size: -1, URL: cdn.URL + "/attachments/1/2/a.bin"}
	n, err := p.Fetch(context.Background(), f, 5000, io.Discard)
	if !errors.Is(err, inbound.ErrTooLarge) || n != 5001 {
		t.Fatalf("Fetch = %d, %v; want 5001 bytes and ErrTooLarge", n, err)
	}
	if n, err = p.Fetch(context.Background(), f, 100_000, io.Discard); err != nil || n != 100_000 {
		t.Fatalf("Fetch at max = %d, %v", n, err)
	}
}
