package bus

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Caps of a file's listing in a reply (InboxFile): each string bounded,
// so that a reply of MaxInboxFiles files stays under MaxInboxFileSize
// whatever the service sent.
const (
	maxInboxFileOriginal = 255
	maxInboxFileType     = 255
	// MaxInboxFileSkipped is the longest reason a file was skipped for.
	MaxInboxFileSkipped = 256
)

var inboxFileFields = map[string]uint16{"name": 1 << 0, "original": 1 << 1, "path": 1 << 2, "size": 1 << 3, "contentType": 1 << 4, "skipped": 1 << 5}

// InboxFilesDir is the name of the files directory of the reply whose
// inbox file is file (InboxFileName): <ts>-<id>.files, beside it.
func InboxFilesDir(file string) string { return strings.TrimSuffix(file, ".json") + ".files" }

// InboxFileID is the message id in the inbox file name file
// (InboxFileName); "" if it is not one.
func InboxFileID(file string) string {
	if !ValidInboxFile(file) {
		return ""
	}
	return strings.TrimSuffix(file, ".json")[14:]
}

// InboxFilePath is the Path of a file named name landed with the reply
// whose inbox file is file: relative to the session's inbox directory.
func InboxFilePath(file, name string) string { return InboxFilesDir(file) + "/" + name }

// validateFiles checks m's files: a reply's only, at most MaxInboxFiles,
// each named as SanitizeInboxFileName names, no two folding to one name,
// its Path the one its name gives in m's files directory (so that no
// listing, from this machine's daemon or another's, points elsewhere), or
// none when it was skipped. m's TS is valid.
func (m InboxMessage) validateFiles() []error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &FieldError{Field: field, Rule: fmt.Sprintf(format, a...)})
	}
	if m.Ask != "" {
		bad("files", "only a reply carries files")
	}
	if len(m.Files) > MaxInboxFiles {
		bad("files", "at most %d", MaxInboxFiles)
		return errs
	}
	file, _ := InboxFileName(m)
	used := map[string]bool{}
	for i, f := range m.Files {
		field := fmt.Sprintf("files[%d]", i)
		switch {
		case !validInboxFileName(f.Name):
			bad(field+".name", "must be a sanitized file name of at most %d bytes", MaxInboxFileName)
		case used[foldName(f.Name)]:
			bad(field+".name", "names the file of another entry")
		}
		used[foldName(f.Name)] = true
		if !boundedText(f.Original, maxInboxFileOriginal) || !boundedText(f.ContentType, maxInboxFileType) || !boundedText(f.Skipped, MaxInboxFileSkipped) {
			bad(field, "original, contentType and skipped must be valid UTF-8 of at most %d, %d and %d bytes", maxInboxFileOriginal, maxInboxFileType, MaxInboxFileSkipped)
		}
		if f.Size < 0 {
			bad(field+".size", "must not be negative")
		}
		if want := InboxFilePath(file, f.Name); f.Skipped == "" && f.Path != want {
			bad(field+".path", "must be %q", want)
		} else if f.Skipped != "" && f.Path != "" {
			bad(field+".path", "a skipped file has none")
		}
	}
	return errs
}

func boundedText(s string, max int) bool { return len(s) <= max && utf8.ValidString(s) }

// checkFileKeys checks the keys of each file listed in an inbox file as
// checkKeysIn does the top level's: Unmarshal folds their case and lets a
// repeated key win. data was unmarshalled already.
func checkFileKeys(data []byte) error {
	var raw struct {
		Files []json.RawMessage `json:"files"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	for i, f := range raw.Files {
		if err := checkKeysIn(f, inboxFileFields); err != nil {
			return fmt.Errorf("files[%d]: %w", i, err)
		}
	}
	return nil
}
