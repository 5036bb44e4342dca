package faketelegram_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// sendDocument through the library's multipart upload (InputFileUpload),
// in a topic: the message carries the document as the Bot API shows it,
// and its caption; it counts as a post.
func TestSendDocumentUploads(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	topic, err := b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("log line\n"), 200_000) // 1.8 MB: past the fake's in-memory form limit
	m, err := b.SendDocument(ctx(t), &bot.SendDocumentParams{
		ChatID: chat, MessageThreadID: topic.MessageThreadID, Caption: "report.txt",
		Document: &models.InputFileUpload{Filename: "report.txt", Data: bytes.NewReader(content)},
	})
	if err != nil {
		t.Fatal(err)
	}
	d := m.Document
	if d == nil || d.FileName != "report.txt" || d.MimeType != "text/plain" || d.FileSize != int64(len(content)) || d.FileID == "" || d.FileUniqueID == "" {
		t.Fatalf("document %+v", d)
	}
	if m.Caption != "report.txt" || m.Text != "" || m.MessageThreadID != topic.MessageThreadID || !m.IsTopicMessage || m.From == nil || !m.From.IsBot {
		t.Fatalf("message %+v", m)
	}
	sn := f.Snapshot()
	docs := sn.Documents(chat, int64(topic.MessageThreadID))
	if len(docs) != 1 || docs[0].Document.Sum != sum(content) || sn.Posts != 1 || len(sn.Texts(chat, int64(topic.MessageThreadID))) != 0 {
		t.Fatalf("stored %+v, posts %d", docs, sn.Posts)
	}

	_, err = b.SendDocument(ctx(t), &bot.SendDocumentParams{ChatID: chat, Document: &models.InputFileString{Data: "attach://missing"}})
	wantBadRequest(t, err, "there is no document in the request")
	_, err = b.SendDocument(ctx(t), &bot.SendDocumentParams{ChatID: chat, Document: &models.InputFileString{Data: "no-such-id"}})
	wantBadRequest(t, err, "wrong file identifier/HTTP URL specified")
	_, err = b.SendDocument(ctx(t), &bot.SendDocumentParams{ChatID: chat, Caption: strings.Repeat("x", 1025),
		Document: &models.InputFileUpload{Filename: "a.bin", Data: strings.NewReader("x")}})
	wantBadRequest(t, err, "message caption is too long")
}

// Without topics a document replies to its root like a text: its thread
// is the root's.
func TestSendDocumentReplies(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{Chats: []faketelegram.Chat{{ID: chat}}})
	b := newBot(t, f)
	root, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "root"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.SendDocument(ctx(t), &bot.SendDocumentParams{ChatID: chat, Caption: "a.bin",
		ReplyParameters: &models.ReplyParameters{MessageID: root.ID},
		Document:        &models.InputFileUpload{Filename: "a.bin", Data: strings.NewReader("\x00\x01")}})
	if err != nil {
		t.Fatal(err)
	}
	if m.ReplyToMessage == nil || m.ReplyToMessage.ID != root.ID || m.Document.MimeType != "application/octet-stream" && m.Document.MimeType != "" {
		t.Fatalf("message %+v", m)
	}
	if docs := f.Snapshot().Documents(chat, int64(root.ID)); len(docs) != 1 {
		t.Fatalf("documents under the root: %+v", docs)
	}
	_, err = b.SendDocument(ctx(t), &bot.SendDocumentParams{ChatID: chat, ReplyParameters: &models.ReplyParameters{MessageID: 99},
		Document: &models.InputFileUpload{Filename: "a.bin", Data: strings.NewReader("x")}})
	wantBadRequest(t, err, "message to be replied not found")
}

// editMessageCaption answers in tdlib's order and words, which the id
// probe of a file part reads; editMessageText of a document says it has
// no text.
func TestEditMessageCaptionAnswersTheProbe(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	doc, err := b.SendDocument(ctx(t), &bot.SendDocumentParams{ChatID: chat, Caption: "report.pdf",
		Document: &models.InputFileUpload{Filename: "report.pdf", Data: strings.NewReader("%PDF")}})
	if err != nil {
		t.Fatal(err)
	}
	text, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "a text"})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: "look", File: &faketelegram.File{Name: "shot.png", Content: []byte("png")}})
	if err != nil {
		t.Fatal(err)
	}
	caption := func(id int, c string) error {
		_, err := b.EditMessageCaption(ctx(t), &bot.EditMessageCaptionParams{ChatID: chat, MessageID: id, Caption: c})
		return err
	}
	wantBadRequest(t, caption(doc.ID, "report.pdf"), "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	wantBadRequest(t, caption(text.ID, "a text"), "there is no caption in the message to edit")
	wantBadRequest(t, caption(int(theirs.ID), "look"), "message can't be edited")
	wantBadRequest(t, caption(1, "x"), "message can't be edited")
	wantBadRequest(t, caption(int(theirs.ID)+1, "x"), "message to edit not found")
	_, err = b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: doc.ID, Text: "report.pdf"})
	wantBadRequest(t, err, "there is no text in the message to edit")

	m, err := b.EditMessageCaption(ctx(t), &bot.EditMessageCaptionParams{ChatID: chat, MessageID: doc.ID, Caption: "marked"})
	if err != nil || m.Caption != "marked" || m.Document == nil || m.EditDate == 0 {
		t.Fatalf("edit: %+v, %v", m, err)
	}
	got, _ := f.Snapshot().Message(chat, int64(doc.ID))
	if got.Caption != "marked" || len(got.Edits) != 1 || got.Edits[0] != "report.pdf" {
		t.Fatalf("stored %+v", got)
	}
}

// getFile then the download link the library builds (FileDownloadLink):
// the content, for the bot's token only.
func TestGetFileDownloads(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	content := []byte("screenshot bytes")
	if _, err := f.InjectMessage(faketelegram.Inbound{From: alice, File: &faketelegram.File{Name: "shot.png", Content: content}}); err != nil {
		t.Fatal(err)
	}
	u := nextUpdate(t, f)
	d := u.Message.Document
	if d == nil || d.FileName != "shot.png" || d.MimeType != "image/png" || d.FileSize != int64(len(content)) || u.Message.Caption != "" || u.Message.Text != "" {
		t.Fatalf("update %+v", u.Message)
	}
	file, err := b.GetFile(ctx(t), &bot.GetFileParams{FileID: d.FileID})
	if err != nil || file.FilePath == "" || file.FileSize != int64(len(content)) || file.FileUniqueID != d.FileUniqueID {
		t.Fatalf("getFile: %+v, %v", file, err)
	}
	link := b.FileDownloadLink(file)
	if got, status := download(t, link); status != http.StatusOK || !bytes.Equal(got, content) {
		t.Fatalf("download: %d %q", status, got)
	}
	wrong := strings.Replace(link, f.Token(), "7000000001:AAOtherTokenOtherTokenOtherToken000", 1)
	if _, status := download(t, wrong); status != http.StatusNotFound {
		t.Fatalf("download with another token: %d, want 404", status)
	}
	if _, status := download(t, link+"x"); status != http.StatusNotFound {
		t.Fatalf("download of another path: %d, want 404", status)
	}
	_, err = b.GetFile(ctx(t), &bot.GetFileParams{FileID: "nope"})
	wantBadRequest(t, err, "invalid file_id")
	big, err := f.InjectMessage(faketelegram.Inbound{From: alice, File: &faketelegram.File{Name: "big.bin", Content: make([]byte, faketelegram.MaxDownloadBytes+1)}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.GetFile(ctx(t), &bot.GetFileParams{FileID: big.Document.FileID})
	wantBadRequest(t, err, "file is too big")
	if sn := f.Snapshot(); sn.FileGets != 1 || sn.Downloads != 1 {
		t.Fatalf("counted %d getFile, %d downloads", sn.FileGets, sn.Downloads)
	}
}

// An upload is a post for the shared fault hooks: AcceptThenFail stores
// it and fails the answer; HoldMessages holds it.
func TestUploadMeetsPostFaults(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	send := func() error {
		_, err := b.SendDocument(ctx(t), &bot.SendDocumentParams{ChatID: chat, Caption: "x.txt",
			Document: &models.InputFileUpload{Filename: "x.txt", Data: strings.NewReader("x")}})
		return err
	}
	f.AcceptThenFail(1, faketelegram.Fail502)
	if err := send(); err == nil {
		t.Fatal("accepted-then-failed upload answered ok")
	}
	f.RateLimitNext(1, 0)
	var tooMany *bot.TooManyRequestsError
	if err := send(); !errors.As(err, &tooMany) {
		t.Fatalf("rate-limited upload: %v", err)
	}
	h := f.HoldNext(faketelegram.HoldMessages)
	done := make(chan error, 1)
	go func() { done <- send() }()
	<-h.Arrived()
	h.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sn := f.Snapshot()
	if n := len(sn.Documents(chat, 0)); n != 2 || sn.Posts != 3 {
		t.Fatalf("%d documents stored, %d posts counted; want 2 and 3", n, sn.Posts)
	}
}

// nextUpdate is the first pending update, decoded as the library's.
func nextUpdate(t *testing.T, f *faketelegram.Server) models.Update {
	t.Helper()
	_, r := call(t, f, "getUpdates", nil)
	var us []models.Update
	if err := json.Unmarshal(r.Result, &us); err != nil || len(us) == 0 {
		t.Fatalf("getUpdates: %+v, %v", r, err)
	}
	return us[0]
}

func download(t *testing.T, link string) ([]byte, int) {
	t.Helper()
	if _, err := url.Parse(link); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body, resp.StatusCode
}
