package discord_test

import (
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/providertest"
)

// Files are the files the bot posted in place, by the name it sent (the
// attachment's title when Discord sanitized its filename).
func (r fake) Files(place string) []providertest.PostedFile {
	var out []providertest.PostedFile
	for _, m := range r.f.Snapshot().In(place) {
		if m.AuthorID != fakediscord.BotUserID(suiteToken) {
			continue
		}
		for _, a := range m.Attachments {
			out = append(out, providertest.PostedFile{Message: m.ID, Name: a.Name(), ContentType: a.ContentType, Size: a.Size, Sum: a.Sum})
		}
	}
	return out
}

func (r fake) ReplyWithFile(place, text string, f providertest.AttachedFile) (string, error) {
	m, err := r.f.InjectMessage(place, suiteUser, text, fakediscord.File{Name: f.Name, ContentType: f.ContentType, Content: f.Content})
	return m.ID, err
}
