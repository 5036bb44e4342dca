package systemtest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/reconcile"
)

// topicDocuments are the bot's posts in topic, in order: "text <text>"
// for a text with prefix, "file <name>" for a document; and the
// documents as the service holds them.
func topicDocuments(s faketelegram.Snapshot, topic int64, prefix string) (posts []string, files []postedFile) {
	for _, m := range s.Messages {
		if m.Thread != topic || m.Service != "" || m.Deleted || !m.From.IsBot {
			continue
		}
		if strings.HasPrefix(m.Text, prefix) {
			posts = append(posts, "text "+m.Text)
		}
		if d := m.Document; d != nil {
			posts = append(posts, "file "+d.FileName)
			files = append(files, postedFile{d.FileName, d.FileSize, d.Sum})
		}
	}
	return posts, files
}

// The Telegram bot takes the same burst (one document per file, each
// sendDocument streamed): under accepted-then-reset uploads and a kill -9
// while an upload is held at the service (which stores it once
// released, the client gone), every file is in the topic exactly once,
// whole, in order; then a reply with a screenshot lands beside its JSON.
func TestFilesTelegramBurstAndReply(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(telegramBot())
	e.startLoop()
	e.waitStatus("ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	topic := e.telegramTopic("burst")
	d := e.bus("tg")

	e.f.telegram.FailAfter("sendDocument", 3, faketelegram.FailCut)
	b := e.writeBurst(d, "tg", "burst", 10)
	ctx, cancel := context.WithTimeout(context.Background(), 3*e2eDeadline)
	defer cancel()
	if _, err := e.f.telegram.WaitFor(ctx, func(s faketelegram.Snapshot) bool {
		_, files := topicDocuments(s, topic, "")
		return len(files) >= len(b.files)/4
	}); err != nil {
		t.Fatalf("the burst did not start: %v", err)
	}
	h := e.f.telegram.HoldNext("sendDocument")
	select {
	case <-h.Arrived():
	case <-ctx.Done():
		t.Fatal("no upload reached the hold")
	}
	pid := e.state("tg").PID
	e.killDaemons()
	h.Release()
	e.f.telegram.FailAfter("sendDocument", 3, faketelegram.FailCut)
	e.waitRespawned("tg", pid)
	if _, err := e.f.telegram.WaitFor(ctx, func(s faketelegram.Snapshot) bool {
		_, files := topicDocuments(s, topic, "")
		return len(files) >= len(b.files)
	}); err != nil {
		t.Fatalf("the burst did not finish: %v", err)
	}
	e.waitOutboxEmpty("tg")
	s := e.f.telegram.Snapshot()
	posts, files := topicDocuments(s, topic, "burst line ")
	if !slices.Equal(files, b.files) {
		t.Errorf("the topic holds %d files, want %d once each, in order:\ngot  %v\nwant %v", len(files), len(b.files), files, b.files)
	}
	if !slices.Equal(posts, b.order) {
		t.Errorf("the topic's posts: %q, want each message's text then its files, once each, in order:\n%q", posts, b.order)
	}
	checkFilesSent(t, d, b.sent)
	cuts := 0
	for _, r := range e.f.telegram.Requests() { // the path holds the token: never printed
		if strings.HasSuffix(r.Path, "/sendDocument") && r.Status == 0 {
			cuts++
		}
	}
	if cuts < 3 {
		t.Errorf("%d uploads were accepted then cut, want at least 3: the faults did not happen", cuts)
	}

	shot := screenshot(t)
	if _, err := e.f.telegram.InjectMessage(faketelegram.Inbound{From: aliceTelegram, Thread: topic, Text: "the screen", File: &faketelegram.File{Name: "screenshot.png", Content: shot}}); err != nil {
		t.Fatal(err)
	}
	w := &filesWorld{e: e, name: "tg", d: d}
	got := w.waitReplies(t, "burst", 1)
	for name, r := range got {
		base := strings.TrimSuffix(name, ".json")
		if r.Text != "the screen" || len(r.Files) != 1 || r.Files[0].Path != base+".files/screenshot.png" || r.Files[0].Size != int64(len(shot)) {
			t.Fatalf("the inbox holds %s: %+v, want the reply with screenshot.png", name, r)
		}
		landed := filepath.Join(d.Inbox, "burst", base+".files", "screenshot.png")
		if data, err := os.ReadFile(landed); err != nil || string(data) != string(shot) || modeOf(landed) != 0o600 {
			t.Errorf("%s: %v, mode %v; want the screenshot's bytes, 0600", landed, err, modeOf(landed))
		}
	}
}
