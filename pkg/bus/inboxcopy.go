package bus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/platform"
)

// A copy of an inbox file landed elsewhere (by another machine's daemon,
// DESIGN 10) is written like a landing: StageInboxCopy writes it whole and
// durable (its name too) under a hidden stage name of its own, the caller
// records that it has it, PublishInboxCopy renames it into place without
// replacing anything. A copy's stage is never a landing's (".<file>.copy", not
// ".<file>.tmp"): the inbound side removes the landing stages its journal
// does not name, and its journal never names a copy.

const copySuffix = ".copy"

func copyStageName(file string) string { return "." + file + copySuffix }

// StageInboxCopy writes data, the file named file of session's inbox
// landed elsewhere, under its copy's stage name, 0600 and fsynced. The
// caller checked it (CheckInboxEntry).
func StageInboxCopy(d Dirs, session, file string, data []byte) error {
	if err := CheckInboxEntry(session, file, data); err != nil {
		return err
	}
	dir, err := SessionInboxDir(d, session)
	if err != nil {
		return err
	}
	if err := platform.StageFile(filepath.Join(dir, copyStageName(file)), data); err != nil {
		return fmt.Errorf("inbox copy %s of session %q: %w", file, session, err)
	}
	// The stage's name is made durable before the caller records the
	// copy in its ledger, another directory, maybe another filesystem: a
	// record that outlived its stage would stand for a copy never made.
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("inbox copy %s of session %q: %w", file, session, err)
	}
	return nil
}

// PublishInboxCopy renames the copy's stage into place, as PublishInbox
// does a landing's: no stage is success (published already), the same
// bytes already there are success, other bytes an error with both left.
func PublishInboxCopy(d Dirs, session, file string) error {
	return publishStage(d, session, file, copyStageName)
}

// ListStagedInboxCopies returns every copy's stage in the inbox.
func ListStagedInboxCopies(d Dirs) ([]StagedInbox, error) { return listStages(d, copySuffix) }

// RemoveStagedInboxCopy removes a copy's stage that was never recorded.
func RemoveStagedInboxCopy(d Dirs, s StagedInbox) error { return removeStage(d, s, copyStageName) }

// CheckInboxEntry judges a file of session's inbox that came from beyond
// this machine, whatever kind of entry it is (a reply, a decision): the
// session and the file name are ones this bus writes (so neither can
// climb out of the inbox nor hide as a stage), and the content is at
// most MaxInboxFileSize bytes of UTF-8, one JSON object whose "id" is
// the one its name carries and whose "session" is session. What kind of
// entry it is and its other fields are the reader's to judge, as for a
// file landed here.
func CheckInboxEntry(session, file string, data []byte) error {
	if !ValidInboxSession(session) {
		return fmt.Errorf("inbox entry: session %q: not a session name the inbox takes", session)
	}
	if !ValidInboxFile(file) {
		return fmt.Errorf("inbox entry: file %q: not <13 digits>-<id>.json", file)
	}
	if len(data) > MaxInboxFileSize {
		return fmt.Errorf("inbox entry %s: %d bytes, over %d", file, len(data), MaxInboxFileSize)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("inbox entry %s: not valid UTF-8", file)
	}
	var head struct {
		ID      *string `json:"id"`
		Session *string `json:"session"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&head); err != nil {
		return fmt.Errorf("inbox entry %s: not a JSON object: %w", file, err)
	}
	if dec.More() {
		return fmt.Errorf("inbox entry %s: more than one JSON value", file)
	}
	// Unmarshal folds the case of keys and lets a repeated key win: the
	// exact keys are checked like a landed file's.
	if err := checkExactKeys(data, "id", "session"); err != nil {
		return fmt.Errorf("inbox entry %s: %w", file, err)
	}
	id := strings.TrimSuffix(file, ".json")[14:]
	switch {
	case head.ID == nil || *head.ID != id:
		return fmt.Errorf("inbox entry %s: its id is not %q, the one its name carries", file, id)
	case head.Session == nil || *head.Session != session:
		return fmt.Errorf("inbox entry %s: its session is not %q, the one its key names", file, session)
	}
	return nil
}

// checkExactKeys fails unless each of keys appears exactly once, spelled
// exactly, among the top-level keys of the JSON object data.
func checkExactKeys(data []byte, keys ...string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	count := map[string]int{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		count[k]++
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	for _, k := range keys {
		if count[k] != 1 {
			return errors.New(`must hold "` + k + `" exactly once, spelled so`)
		}
	}
	return nil
}
