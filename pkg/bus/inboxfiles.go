package bus

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/platform"
)

// An inbox message lands in two steps around its journal record (the
// inbound engine's order): StageInbox writes the file, whole and durable,
// under a hidden name; the "landed" record is appended; PublishInbox
// renames it into place. A crash before the record leaves a stage that no
// record names (removed at start, and the message delivered again); after
// it, a stage that FinishInbox completes. Readers never see a stage: its
// name starts with a dot.

const stageSuffix = ".tmp"

func stageName(file string) string { return "." + file + stageSuffix }

// SessionInboxDir returns the inbox directory of session, made (0700,
// durably) if missing and refused if it is not a private directory of
// ours: a symbolic link there would send a reply somewhere else.
func SessionInboxDir(d Dirs, session string) (string, error) {
	if !ValidInboxSession(session) {
		return "", fmt.Errorf("inbox of session %q: not a usable directory name", session)
	}
	dir := filepath.Join(d.Inbox, session)
	_, err := os.Lstat(dir)
	missing := errors.Is(err, fs.ErrNotExist)
	if err := atomicfile.CheckPrivateDir(dir); err != nil {
		return "", fmt.Errorf("inbox of session %q: %w", session, err)
	}
	if missing {
		if err := atomicfile.SyncDir(d.Inbox); err != nil {
			return "", fmt.Errorf("inbox of session %q: %w", session, err)
		}
	}
	return dir, nil
}

// StageInbox writes m's file under its hidden stage name in its session's
// inbox directory and returns the file's final name.
func StageInbox(d Dirs, m InboxMessage) (string, error) {
	data, err := EncodeInbox(m)
	if err != nil {
		return "", err
	}
	file, err := InboxFileName(m)
	if err != nil {
		return "", err
	}
	dir, err := SessionInboxDir(d, m.Session)
	if err != nil {
		return "", err
	}
	if err := platform.StageFile(filepath.Join(dir, stageName(file)), data); err != nil {
		return "", fmt.Errorf("inbox message %q: %w", m.ID, err)
	}
	return file, nil
}

// PublishInbox completes the landing of file in session's inbox: its
// stage is renamed into place, durably. No stage left means it was
// published already (and the reader may have taken it since): success.
// A final file already there holding the same bytes is success too (the
// stage is removed); other bytes are an error, and both are left as they
// are.
func PublishInbox(d Dirs, session, file string) error {
	return publishStage(d, session, file, stageName)
}

// publishStage renames file's stage (named by stage) into place in
// session's inbox directory, as PublishInbox says.
func publishStage(d Dirs, session, file string, stage func(string) string) error {
	if !ValidInboxSession(session) || !ValidInboxFile(file) {
		return fmt.Errorf("inbox file %q of session %q: not a name this bus writes", file, session)
	}
	dir := filepath.Join(d.Inbox, session)
	staged, final := filepath.Join(dir, stage(file)), filepath.Join(dir, file)
	if _, err := os.Lstat(staged); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("inbox file %s: %w", final, err)
	}
	err := platform.PublishStaged(staged, final)
	if !errors.Is(err, platform.ErrExist) {
		return err
	}
	a, aerr := atomicfile.ReadCapped(staged, MaxInboxFileSize)
	b, berr := atomicfile.ReadCapped(final, MaxInboxFileSize)
	if aerr != nil || berr != nil || !bytes.Equal(a, b) {
		return fmt.Errorf("inbox file %s: already there with other content; left as it is", final)
	}
	if err := os.Remove(staged); err != nil {
		return fmt.Errorf("inbox file %s: removing its stage: %w", final, err)
	}
	return atomicfile.SyncDir(dir)
}

// ReadStagedInbox returns the bytes of file's stage in session's inbox:
// what a landing recorded but has not published yet. fs.ErrNotExist:
// there is none (never staged, or published since).
func ReadStagedInbox(d Dirs, session, file string) ([]byte, error) {
	if !ValidInboxSession(session) || !ValidInboxFile(file) {
		return nil, fmt.Errorf("inbox file %q of session %q: not a name this bus writes", file, session)
	}
	return atomicfile.ReadCapped(filepath.Join(d.Inbox, session, stageName(file)), MaxInboxFileSize)
}

// StagedInbox is a stage found in a session's inbox directory.
type StagedInbox struct{ Session, File string }

// ListStagedInbox returns every stage in the inbox's session directories.
// Entries that are not session directories of ours are skipped: they are
// the reader's business.
func ListStagedInbox(d Dirs) ([]StagedInbox, error) { return listStages(d, stageSuffix) }

// listStages returns every stage ending in suffix in the inbox's session
// directories.
func listStages(d Dirs, suffix string) ([]StagedInbox, error) {
	sessions, err := os.ReadDir(d.Inbox)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list inbox: %w", err)
	}
	var out []StagedInbox
	for _, s := range sessions {
		if !s.IsDir() || !ValidInboxSession(s.Name()) {
			continue // a symbolic link or a file reports no dir here
		}
		entries, err := os.ReadDir(filepath.Join(d.Inbox, s.Name()))
		if err != nil {
			return nil, fmt.Errorf("list inbox of session %q: %w", s.Name(), err)
		}
		for _, e := range entries {
			n := e.Name()
			if !strings.HasPrefix(n, ".") || !strings.HasSuffix(n, suffix) {
				continue
			}
			if file := strings.TrimSuffix(n[1:], suffix); ValidInboxFile(file) && e.Type().IsRegular() {
				out = append(out, StagedInbox{Session: s.Name(), File: file})
			}
		}
	}
	return out, nil
}

// RemoveStagedInbox removes a stage no record names: its message was
// never landed, and will be delivered again.
func RemoveStagedInbox(d Dirs, s StagedInbox) error { return removeStage(d, s, stageName) }

func removeStage(d Dirs, s StagedInbox, stage func(string) string) error {
	if !ValidInboxSession(s.Session) || !ValidInboxFile(s.File) {
		return fmt.Errorf("inbox stage %q of session %q: not a name this bus writes", s.File, s.Session)
	}
	dir := filepath.Join(d.Inbox, s.Session)
	if err := os.Remove(filepath.Join(dir, stage(s.File))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("inbox stage: %w", err)
	}
	return atomicfile.SyncDir(dir)
}

// ValidInboxFile reports whether name is one InboxFileName could give:
// 13 digits, a dash, a message id, ".json".
func ValidInboxFile(name string) bool {
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || len(id) < 15 || id[13] != '-' {
		return false
	}
	for _, c := range id[:13] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return validToken(id[14:], MaxIDLen, false)
}
