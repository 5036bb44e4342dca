package bus

import (
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"
)

// Attachment is one file an outbox message carries (DESIGN 5, "Files").
type Attachment struct {
	// File names the file's entry in the bus's files/ directory; the
	// entry belongs to this message alone and leaves with it.
	File string `json:"file"`
	// Name is the file's name as the service shows it.
	Name string `json:"name"`
	// ContentType is its media type; "" lets the relay sniff it.
	ContentType string `json:"contentType,omitempty"`
}

// Limits of a message's attachments, whatever the service: each service's
// own (size per file, files per post) are the relay's to enforce.
const (
	MaxAttachments    = 10
	MaxAttachmentName = 255 // bytes
	maxContentType    = 255
)

// validateAttachments checks m's attachments: at most MaxAttachments, on
// a message only, each naming a files/ entry ([A-Za-z0-9._-], not hidden),
// with a name that is one path element of valid UTF-8 and a content type
// that parses as a media type.
func (m Message) validateAttachments() []error {
	if len(m.Attachments) == 0 {
		return nil
	}
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &FieldError{Field: field, Rule: fmt.Sprintf(format, a...)})
	}
	if m.Event != EventMessage {
		bad("attachments", "only a message (event message) carries files")
	}
	if len(m.Attachments) > MaxAttachments {
		bad("attachments", "has %d files, over %d", len(m.Attachments), MaxAttachments)
	}
	seen := map[string]bool{}
	for i, a := range m.Attachments {
		f := fmt.Sprintf("attachments[%d]", i)
		if !ValidFileEntry(a.File) {
			bad(f+".file", "must name an entry of files/: [A-Za-z0-9._-]{1,%d}, not starting with '.'", MaxAttachmentName)
		} else if seen[a.File] {
			bad(f+".file", "names %s twice in one message", a.File)
		}
		seen[a.File] = true
		if err := validAttachmentName(a.Name); err != "" {
			bad(f+".name", "%s", err)
		}
		if a.ContentType != "" {
			if len(a.ContentType) > maxContentType {
				bad(f+".contentType", "is over %d bytes", maxContentType)
			} else if _, _, err := mime.ParseMediaType(a.ContentType); err != nil {
				bad(f+".contentType", "is not a media type: %v", err)
			}
		}
	}
	return errs
}

// ValidFileEntry reports whether s can name an entry of files/: one path
// element that is not hidden (temp names start with '.').
func ValidFileEntry(s string) bool {
	return validToken(s, MaxAttachmentName, false) && s[0] != '.'
}

func validAttachmentName(s string) string {
	switch {
	case s == "":
		return "must not be empty"
	case len(s) > MaxAttachmentName:
		return fmt.Sprintf("is %d bytes, over %d", len(s), MaxAttachmentName)
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	case s == "." || s == ".." || strings.ContainsAny(s, "/\\\x00"):
		return "must be one file name, without / or \\"
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return "must not hold control characters"
		}
	}
	return ""
}
