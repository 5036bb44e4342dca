package bus

import (
	"strconv"
	"strings"
)

// File parts of a message (DESIGN 5, "Files"): each attachment is its own
// part, "file:<k>" for attachments[k], and the long text's file is
// PartFileText. They are posted after the text parts, each exactly once.
const (
	filePrefix   = "file:"
	PartFileText = filePrefix + "text"
)

// FilePart names the part of attachments[k].
func FilePart(k int) string { return filePrefix + strconv.Itoa(k) }

// ParseFilePart is FilePart's inverse, PartFileText included (k -1);
// ok false for any other part.
func ParseFilePart(part string) (k int, ok bool) {
	s, isFile := strings.CutPrefix(part, filePrefix)
	if !isFile {
		return 0, false
	}
	if s == "text" {
		return -1, true
	}
	n, ok := decimal(s)
	if !ok || n >= MaxAttachments {
		return 0, false
	}
	return n, true
}

// validateFileFields checks a record's file fields: set only on the
// attempt of a file part, and there all but File required (File is ""
// for the long text's file, which is rendered from the message).
func validateFileFields(r Record) []error {
	var errs []error
	bad := func(field, rule string) { errs = append(errs, &FieldError{Field: field, Rule: rule}) }
	k, file := ParseFilePart(r.Part)
	if !file || r.Op != OpAttempt {
		if r.File != "" || r.Name != "" || r.ContentType != "" || r.Size != 0 || r.FileSum != "" {
			bad("file", "file fields belong to the attempt of a file part only")
		}
		return errs
	}
	switch {
	case k >= 0 && !ValidFileEntry(r.File):
		bad("file", "must name an entry of files/")
	case k < 0 && r.File != "":
		bad("file", "the long text's file has no entry")
	}
	if why := validAttachmentName(r.Name); why != "" {
		bad("name", why)
	}
	if r.ContentType == "" || len(r.ContentType) > maxContentType {
		bad("contentType", "is required, at most 255 bytes")
	}
	if r.Size < 0 {
		bad("size", "must not be negative")
	}
	if !validSum(r.FileSum) {
		bad("fileSum", "must be 64 lowercase hex digits")
	}
	return errs
}
