package fakeslack_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func slackErr(err error) string {
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		return se.Err
	}
	return ""
}

// slack-go's three-step upload (getUploadURLExternal, the upload URL,
// completeUploadExternal) shares the file in the thread as one message of
// the bot's, and files.info names that message in its shares.
func TestUploadIntoThread(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	ctx := context.Background()
	root := mustPost(t, api, "root", "")
	content := bytes.Repeat([]byte("log line\n"), 1000)
	fs, err := api.UploadFileContext(ctx, slack.UploadFileParameters{Reader: bytes.NewReader(content), FileSize: len(content),
		Filename: "build.log", Title: "build.log", Channel: channel, ThreadTimestamp: root})
	if err != nil {
		t.Fatal(err)
	}
	sn := f.Snapshot()
	if len(sn.Files) != 1 {
		t.Fatalf("files %+v", sn.Files)
	}
	file := sn.Files[0]
	if file.ID != fs.ID || file.Size != int64(len(content)) || file.Sum != sum(content) || !file.Completed || file.Completions != 1 ||
		!strings.HasPrefix(file.ContentType, "text/") || file.ThreadTS != root || file.User != fakeslack.BotUserID(botTok) {
		t.Fatalf("file %+v (summary %+v)", file, fs)
	}
	replies := sn.Thread(channel, root)
	if len(replies) != 1 || replies[0].TS != file.MessageTS || len(replies[0].Files) != 1 || replies[0].Files[0] != fs.ID {
		t.Fatalf("thread %+v, file %+v", replies, file)
	}
	if sn.Posts != 2 { // the root, and the completion
		t.Errorf("posts %d, want 2", sn.Posts)
	}
	info, _, _, err := api.GetFileInfoContext(ctx, fs.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	shares := info.Shares.Public[channel]
	if len(shares) != 1 || shares[0].Ts != file.MessageTS || shares[0].ThreadTs != root || info.Size != len(content) || info.Name != "build.log" {
		t.Fatalf("files.info %+v shares %+v", info, info.Shares)
	}
	msgs, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: root})
	if err != nil || len(msgs) != 2 || len(msgs[1].Files) != 1 || msgs[1].Files[0].ID != fs.ID || !msgs[1].Upload || msgs[1].SubType != "" {
		t.Fatalf("replies %+v, %v", msgs, err)
	}
}

// Completion "can only be called once" (Slack's reference): a repeat is
// refused and shares nothing again; a ticket never uploaded to cannot be
// completed, and until completed it is no file for files.info.
func TestCompleteOnce(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	ctx := context.Background()
	root := mustPost(t, api, "root", "")
	u, err := api.GetUploadURLExternalContext(ctx, slack.GetUploadURLExternalParameters{FileName: "a.txt", FileSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u.UploadURL, f.URL()+"/upload/") {
		t.Fatalf("upload URL %q", u.UploadURL)
	}
	complete := func() error {
		_, err := api.CompleteUploadExternalContext(ctx, slack.CompleteUploadExternalParameters{
			Files: []slack.FileSummary{{ID: u.FileID}}, Channel: channel, ThreadTimestamp: root})
		return err
	}
	if err := complete(); slackErr(err) != "file_not_found" {
		t.Fatalf("completing before the upload: %v", err)
	}
	if _, _, _, err := api.GetFileInfoContext(ctx, u.FileID, 0, 0); slackErr(err) != "file_not_found" {
		t.Fatalf("files.info before completion: %v", err)
	}
	if err := api.UploadToURL(ctx, slack.UploadToURLParameters{UploadURL: u.UploadURL, Filename: "a.txt", Content: "abc"}); err != nil {
		t.Fatal(err)
	}
	if err := complete(); err != nil {
		t.Fatal(err)
	}
	if err := complete(); slackErr(err) != "file_not_found" {
		t.Fatalf("completing twice: %v", err)
	}
	sn := f.Snapshot()
	if n := len(sn.Thread(channel, root)); n != 1 || sn.Files[0].Completions != 3 {
		t.Fatalf("%d shares, file %+v", n, sn.Files[0])
	}
}

// Shares show in files.info only after the share lag, as Slack shares a
// completed file asynchronously.
func TestShareLag(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	f.SetShareLag(time.Hour)
	api := newAPI(f, botTok, appTok)
	ctx := context.Background()
	fs, err := api.UploadFileContext(ctx, slack.UploadFileParameters{Content: "x", FileSize: 1, Filename: "x.txt", Channel: channel})
	if err != nil {
		t.Fatal(err)
	}
	info, _, _, err := api.GetFileInfoContext(ctx, fs.ID, 0, 0)
	if err != nil || len(info.Shares.Public) != 0 {
		t.Fatalf("files.info %+v, %v", info, err)
	}
	if n := len(f.Snapshot().Channel(channel)); n != 1 {
		t.Fatalf("%d messages: the share's message is there at once", n)
	}
}

// A completion is a post for the faults: held before anything is stored,
// and accepted-then-failed.
func TestCompletionFaults(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	ctx := context.Background()
	upload := func(name string) error {
		_, err := api.UploadFileContext(ctx, slack.UploadFileParameters{Content: name, FileSize: len(name), Filename: name, Channel: channel})
		return err
	}
	f.AcceptThenFail(1, fakeslack.Fail502)
	if err := upload("a.txt"); err == nil {
		t.Fatal("accepted-then-failed completion answered ok")
	}
	if sn := f.Snapshot(); len(sn.Channel(channel)) != 1 || !sn.Files[0].Completed {
		t.Fatalf("the completion was not stored: %+v", sn.Files)
	}
	f.RateLimitNext(1, time.Second)
	var rl *slack.RateLimitedError
	if err := upload("b.txt"); !errors.As(err, &rl) {
		t.Fatalf("rate limited completion: %v", err)
	}
	h := f.HoldNextPost()
	done := make(chan error, 1)
	go func() { done <- upload("c.txt") }()
	<-h.Arrived()
	if sn := f.Snapshot(); len(sn.Channel(channel)) != 1 || sn.Held != 1 {
		t.Fatalf("held completion stored: %d messages, held %d", len(sn.Channel(channel)), sn.Held)
	}
	h.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if sn := f.Snapshot(); len(sn.Channel(channel)) != 2 || sn.Posts != 3 {
		t.Fatalf("%d messages, %d posts", len(sn.Channel(channel)), sn.Posts)
	}
}

// A user's files arrive as Slack sends them: a file_share message event
// and a reply in conversations.replies with files, each downloadable from
// url_private_download with the bot token only.
func TestUserFiles(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}, AppTokens: []string{appTok}})
	api := newAPI(f, botTok, appTok)
	ctx := context.Background()
	c := run(t, api)
	root := mustPost(t, api, "root", "")
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	m, err := f.InjectMessageWithFiles(channel, user, "see this", root,
		fakeslack.Attachment{Name: "shot.png", Content: png}, fakeslack.Attachment{Name: "notes", ContentType: "text/markdown", Content: []byte("# hi")})
	if err != nil {
		t.Fatal(err)
	}
	e := c.next(t, socketmode.EventTypeEventsAPI, func(e socketmode.Event) bool {
		ev, _ := e.Data.(slackevents.EventsAPIEvent)
		me, ok := ev.InnerEvent.Data.(*slackevents.MessageEvent)
		return ok && me.TimeStamp == m.TS
	})
	me := e.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent)
	if me.SubType != "file_share" || me.Message == nil || len(me.Message.Files) != 2 || me.User != user || me.ThreadTimeStamp != root {
		t.Fatalf("event %+v", me)
	}
	got := me.Message.Files
	if got[0].Name != "shot.png" || got[0].Mimetype != "image/png" || got[0].Size != len(png) || got[1].Mimetype != "text/markdown" {
		t.Fatalf("files %+v", got)
	}
	msgs, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: root})
	if err != nil || len(msgs) != 2 || len(msgs[1].Files) != 2 || msgs[1].Files[0].URLPrivateDownload != got[0].URLPrivateDownload {
		t.Fatalf("replies %+v, %v", msgs, err)
	}
	var buf bytes.Buffer
	if err := api.GetFileContext(ctx, got[0].URLPrivateDownload, &buf); err != nil || !bytes.Equal(buf.Bytes(), png) {
		t.Fatalf("download: %d bytes, %v", buf.Len(), err)
	}
	// Another token, or one without files:read, lands on the sign-in page.
	other := slack.New("xoxb-not-ours", slack.OptionAPIURL(f.URL()+"/api/"))
	for name, get := range map[string]func() error{
		"unknown token": func() error {
			return slack.New("xoxa-nope", slack.OptionAPIURL(f.URL()+"/api/")).GetFileContext(ctx, got[0].URLPrivateDownload, &bytes.Buffer{})
		},
		"no files:read": func() error {
			f.SetScopeGranted("files:read", false)
			defer f.SetScopeGranted("files:read", true)
			return other.GetFileContext(ctx, got[0].URLPrivateDownload, &bytes.Buffer{})
		},
	} {
		if err := get(); err == nil || !strings.Contains(err.Error(), "sign-in") {
			t.Errorf("%s: %v, want the sign-in redirect", name, err)
		}
	}
}
