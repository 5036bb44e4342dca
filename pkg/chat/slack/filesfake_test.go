package slack_test

import (
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/providertest"
)

// Files are the files the bot's messages share in place's thread, in the
// order those messages came: each completion is its own message, so a
// file completed twice shows twice.
func (r fake) Files(place string) []providertest.PostedFile {
	sn := r.f.Snapshot()
	byID := map[string]fakeslack.File{}
	for _, f := range sn.Files {
		byID[f.ID] = f
	}
	var out []providertest.PostedFile
	for _, m := range sn.Thread(suiteChannel, place) {
		if m.BotID == "" {
			continue
		}
		for _, id := range m.Files {
			f := byID[id]
			out = append(out, providertest.PostedFile{Message: m.TS, Name: f.Name, ContentType: f.ContentType, Size: f.Size, Sum: f.Sum})
		}
	}
	return out
}

// ReplyWithFile is the suite's user attaching f to a reply in place's
// thread, as Slack delivers it: a file_share message event, and the
// reply with its files in conversations.replies.
func (r fake) ReplyWithFile(place, text string, f providertest.AttachedFile) (string, error) {
	m, err := r.f.InjectMessageWithFiles(suiteChannel, suiteUser, text, place,
		fakeslack.Attachment{Name: f.Name, ContentType: f.ContentType, Content: f.Content})
	return m.TS, err
}
