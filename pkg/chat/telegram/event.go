package telegram

import (
	"strconv"
	"time"

	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/inbound"
)

// eventOf is an update as the inbound side reads it; ok is false for an
// update that carries no message of the configured chat (its update id
// is confirmed all the same). A message's place is its thread: the forum
// topic it is in, or, without topics, the root of its reply chain, which
// the service gives as message_thread_id in a supergroup either way. A
// message with a file carries it in Files (filesOf), its caption as the
// text.
func eventOf(u models.Update, chatID string, self int64) (inbound.Event, bool) {
	m, kind := u.Message, inbound.Plain
	if m == nil {
		m, kind = u.EditedMessage, inbound.Edit
	}
	if m == nil || strconv.FormatInt(m.Chat.ID, 10) != chatID {
		return inbound.Event{}, false
	}
	text := m.Text
	if text == "" {
		text = m.Caption
	}
	files := filesOf(m)
	if kind == inbound.Plain && text == "" && len(files) == 0 {
		kind = inbound.Other // a service message, a sticker, a topic created or closed
	}
	ev := inbound.Event{ID: strconv.Itoa(m.ID), Kind: kind, Text: text, Time: time.Unix(int64(m.Date), 0), Files: files}
	if m.MessageThreadID != 0 {
		ev.Place = strconv.Itoa(m.MessageThreadID)
	}
	if m.From != nil {
		ev.User = strconv.FormatInt(m.From.ID, 10)
		ev.Bot = m.From.IsBot
		ev.Self = m.From.ID == self
	}
	return ev, true
}

// filesOf is the file a message carries, as the inbound side fetches it
// (Fetch, by file_id): a document, a photo (its largest size), a video,
// an audio file, a voice note or an animation; none for anything else (a
// sticker is no file someone sends to be read). A message carries at
// most one. A name the service does not give is made from the file's
// unique id and the kind's usual extension; a size it does not give is
// -1.
func filesOf(m *models.Message) []inbound.RemoteFile {
	var f inbound.RemoteFile
	switch {
	case m.Document != nil:
		d := m.Document
		f = remoteFile(d.FileID, d.FileName, "document-"+d.FileUniqueID, d.FileSize, d.MimeType, "")
	case len(m.Photo) > 0:
		ph := largest(m.Photo)
		f = remoteFile(ph.FileID, "", "photo-"+ph.FileUniqueID+".jpg", int64(ph.FileSize), "", "image/jpeg")
	case m.Video != nil:
		v := m.Video
		f = remoteFile(v.FileID, v.FileName, "video-"+v.FileUniqueID+".mp4", v.FileSize, v.MimeType, "video/mp4")
	case m.Audio != nil:
		a := m.Audio
		f = remoteFile(a.FileID, a.FileName, "audio-"+a.FileUniqueID+".mp3", a.FileSize, a.MimeType, "audio/mpeg")
	case m.Voice != nil:
		v := m.Voice
		f = remoteFile(v.FileID, "", "voice-"+v.FileUniqueID+".ogg", v.FileSize, v.MimeType, "audio/ogg")
	case m.Animation != nil:
		a := m.Animation
		f = remoteFile(a.FileID, a.FileName, "animation-"+a.FileUniqueID+".mp4", a.FileSize, a.MimeType, "video/mp4")
	default:
		return nil
	}
	return []inbound.RemoteFile{f}
}

func remoteFile(id, name, fallback string, size int64, mimeType, defaultType string) inbound.RemoteFile {
	if name == "" {
		name = fallback
	}
	if size <= 0 {
		size = -1
	}
	if mimeType == "" {
		mimeType = defaultType
	}
	return inbound.RemoteFile{ID: id, Name: name, Size: size, ContentType: mimeType}
}

// largest is a photo's largest size, the last the service lists (it
// lists them smallest first), compared by area all the same.
func largest(sizes []models.PhotoSize) models.PhotoSize {
	best := sizes[0]
	for _, s := range sizes[1:] {
		if s.Width*s.Height >= best.Width*best.Height {
			best = s
		}
	}
	return best
}
