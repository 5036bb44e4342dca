package discord

import (
	"strings"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/relay"
)

// historyAttachment is what a lookup reads of a fetched message's file.
type historyAttachment struct {
	Filename string `json:"filename"`
	// Title is the name as it was sent, when Discord sanitized the
	// filename (special characters: the reference's own example is
	// Cyrillic).
	Title string `json:"title"`
	Size  int64  `json:"size"`
}

// sameFile says whether a message's attachments are what a part posts:
// none for a text part; for a file part exactly its one file, by size and
// name. Fetched attachments carry no checksum, and Discord may sanitize a
// name it was sent, documenting only that the title then keeps it: the
// name matches as sent (filename or title), or as it reads with every
// character other than ASCII letters, digits, '.' and '-' left out, which
// is how a sanitized name still compares with the name sent. A file part's
// message is the bot's, empty but for the file, in the session's thread
// after the last done part (match checks the rest): size and name there
// single it out.
func sameFile(got []historyAttachment, u *relay.Upload) bool {
	if u == nil {
		return len(got) == 0
	}
	if len(got) != 1 || got[0].Size != u.Size {
		return false
	}
	a := got[0]
	return a.Filename == u.Name || a.Title == u.Name || looseName(a.Filename) == looseName(u.Name)
}

// looseName is a file name with only ASCII letters, digits, '.' and '-'.
func looseName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return -1
	}, name)
}

// remoteFiles are a message's attachments as the inbound side fetches
// them: by their CDN URL, under the name Discord serves them with.
func remoteFiles(as []*discordgo.MessageAttachment) []inbound.RemoteFile {
	var out []inbound.RemoteFile
	for _, a := range as {
		if a == nil {
			continue
		}
		out = append(out, inbound.RemoteFile{ID: a.ID, Name: a.Filename, Size: int64(a.Size), ContentType: a.ContentType, URL: a.URL})
	}
	return out
}
