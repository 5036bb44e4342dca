package telegram_test

import (
	"strconv"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/chat/providertest"
)

// Files: the bot's documents in the place's topic (or, without topics,
// among its root's replies), in the order the fake took them. The
// content type is the service's, from the name's extension (it reads no
// part's Content-Type).
func (r fake) Files(place string) []providertest.PostedFile {
	thread, err := strconv.ParseInt(place, 10, 64)
	if err != nil {
		return nil
	}
	var out []providertest.PostedFile
	for _, m := range r.f.Snapshot().Documents(suiteChat, thread) {
		d := m.Document
		out = append(out, providertest.PostedFile{Message: strconv.FormatInt(m.ID, 10), Name: d.FileName, ContentType: d.MimeType, Size: d.FileSize, Sum: d.Sum})
	}
	return out
}

// ReplyWithFile: the user sends f as a document in the place's topic (or
// as a reply to its root), text its caption.
func (r fake) ReplyWithFile(place, text string, f providertest.AttachedFile) (string, error) {
	thread, err := strconv.ParseInt(place, 10, 64)
	if err != nil {
		return "", err
	}
	file := &faketelegram.File{Name: f.Name, Content: f.Content}
	in := faketelegram.Inbound{From: suiteUser, Thread: thread, Text: text, File: file}
	if !r.forum {
		in = faketelegram.Inbound{From: suiteUser, ReplyTo: thread, Text: text, File: file}
	}
	m, err := r.f.InjectMessage(in)
	return strconv.FormatInt(m.ID, 10), err
}
