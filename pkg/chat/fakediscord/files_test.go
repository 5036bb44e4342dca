package fakediscord_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// Uploads as discordgo's real client sends them (ChannelMessageSendComplex
// with Files: multipart, payload_json and files[n]), and the attachments
// as its Message type reads them, in the create answer, the history, the
// gateway's MESSAGE_CREATE and on the fake's CDN.
func TestUploadsThroughDiscordgo(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}, HeartbeatInterval: time.Second})
	s := newSession(t, f, token)
	s.Identify.Intents |= discordgo.IntentMessageContent
	created := messages(s)
	if err := open(t, s); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { closeSession(t, s) })

	log := []byte(strings.Repeat("line of a log\n", 5000))
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 1000)...)
	sent, err := s.ChannelMessageSendComplex(channel, &discordgo.MessageSend{
		Files: []*discordgo.File{
			{Name: "build log.txt", ContentType: "text/plain; charset=utf-8", Reader: bytes.NewReader(log)},
			{Name: "shot.png", Reader: bytes.NewReader(png)}, // discordgo sends application/octet-stream
		},
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Content != "" || len(sent.Attachments) != 2 {
		t.Fatalf("create answered %+v", sent)
	}
	a, b := sent.Attachments[0], sent.Attachments[1]
	// Discord sanitizes a name with special characters; the title keeps it.
	if a.Filename != "build_log.txt" || a.Size != len(log) || a.ContentType != "text/plain; charset=utf-8" || a.ID == "" {
		t.Errorf("first attachment %+v", a)
	}
	if b.Filename != "shot.png" || b.Size != len(png) || b.ContentType != "image/png" {
		t.Errorf("second attachment %+v", b)
	}
	stored := f.Snapshot().Messages[0].Attachments
	if len(stored) != 2 || stored[0].Name() != "build log.txt" || stored[0].Sum != sum(log) || stored[1].Sum != sum(png) {
		t.Errorf("fake stored %+v", stored)
	}

	t.Run("the CDN serves the content without a token", func(t *testing.T) {
		got := download(t, a.URL)
		if !bytes.Equal(got, log) {
			t.Fatalf("downloaded %d bytes, want the %d posted", len(got), len(log))
		}
		if sn := f.Snapshot(); sn.Downloads != 1 || sn.TokensToCDN != 0 {
			t.Fatalf("downloads %d, with a token %d", sn.Downloads, sn.TokensToCDN)
		}
		// A client that sends its token there anyway is seen.
		req, _ := http.NewRequest(http.MethodGet, a.URL, nil)
		req.Header.Set("Authorization", "Bot "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if sn := f.Snapshot(); sn.Downloads != 2 || sn.TokensToCDN != 1 {
			t.Fatalf("downloads %d, with a token %d; want 2 and 1", sn.Downloads, sn.TokensToCDN)
		}
	})

	t.Run("history and the gateway carry the attachments", func(t *testing.T) {
		hist, err := s.ChannelMessages(channel, 10, "", "", "")
		if err != nil || len(hist) != 1 || len(hist[0].Attachments) != 2 || hist[0].Attachments[1].URL != b.URL {
			t.Fatalf("history = %+v, %v", hist, err)
		}
		if _, err := f.InjectMessage(channel, user, "", fakediscord.File{Name: "screen.png", ContentType: "image/png", Content: png}); err != nil {
			t.Fatal(err)
		}
		in := receive(t, created, "a user's file", func(m *discordgo.MessageCreate) bool { return m.Author.ID == user })
		if len(in.Attachments) != 1 || in.Attachments[0].Filename != "screen.png" || in.Attachments[0].Size != len(png) {
			t.Fatalf("MESSAGE_CREATE carries %+v", in.Attachments)
		}
		if got := download(t, in.Attachments[0].URL); !bytes.Equal(got, png) {
			t.Fatalf("downloaded %q", got)
		}
	})

	t.Run("over Discord's limits", func(t *testing.T) {
		big := make([]byte, fakediscord.MaxFileBytes+1)
		_, err := s.ChannelMessageSendComplex(channel, &discordgo.MessageSend{Files: []*discordgo.File{{Name: "big.bin", Reader: bytes.NewReader(big)}}})
		if restStatus(err) != http.StatusRequestEntityTooLarge || restCode(err) != 40005 {
			t.Fatalf("a file over 10 MiB: %v", err)
		}
		var eleven []*discordgo.File
		for range fakediscord.MaxFiles + 1 {
			eleven = append(eleven, &discordgo.File{Name: "a.txt", Reader: strings.NewReader("a")})
		}
		if _, err := s.ChannelMessageSendComplex(channel, &discordgo.MessageSend{Files: eleven}); restCode(err) != 50035 {
			t.Fatalf("11 files: %v", err)
		}
	})
}

// download GETs url as a browser would: no token.
func download(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", url, resp.StatusCode, err)
	}
	return b
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
