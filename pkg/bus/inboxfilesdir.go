package bus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/platform"
)

// The files of a reply land with it (DESIGN 5, "Files"), in the same
// steps: they are fetched into a hidden stage directory
// .<ts>-<id>.files.tmp/ beside the reply's stage, each file 0600 and
// fsynced, the directory 0700; the reply's landed record names the reply,
// and so its files; publishing renames the directory to <ts>-<id>.files/
// before the reply's file, so a reader that sees a reply finds its files.
// A stage no record names is removed at start (the reply is delivered
// again, and fetched again).

const filesStageSuffix = ".files.tmp"

func filesStageName(file string) string { return "." + InboxFilesDir(file) + ".tmp" }

// FilesStage is the stage directory of one reply's files, being filled.
// It is made with its first file: a reply whose files are all skipped
// has no files directory.
type FilesStage struct {
	dir  string // its path
	made bool
	held int // files in it
	used map[string]bool
}

// StageInboxFiles starts the stage of the files of the reply whose inbox
// file is file, in session's inbox, empty: a stage left by an earlier try
// is removed first.
func StageInboxFiles(d Dirs, session, file string) (*FilesStage, error) {
	if !ValidInboxFile(file) {
		return nil, fmt.Errorf("files of %q: not a name this bus writes", file)
	}
	dir, err := SessionInboxDir(d, session)
	if err != nil {
		return nil, err
	}
	stage := filepath.Join(dir, filesStageName(file))
	if err := removeTree(stage); err != nil {
		return nil, err
	}
	return &FilesStage{dir: stage, used: map[string]bool{}}, nil
}

// Create makes the file that the service names original in the stage,
// under its sanitized name, unique in the stage (UniqueInboxFileName),
// 0600, created new (never through a link, never over another file).
func (s *FilesStage) Create(original string) (name string, f *os.File, err error) {
	if !s.made {
		if err := os.Mkdir(s.dir, 0o700); err != nil {
			return "", nil, fmt.Errorf("staging files: %w", err)
		}
		if err := atomicfile.CheckPrivateDir(s.dir); err != nil {
			return "", nil, fmt.Errorf("staging files: %w", err)
		}
		s.made = true
	}
	for range MaxInboxFiles + 1 {
		name = UniqueInboxFileName(original, s.used)
		f, err = os.OpenFile(filepath.Join(s.dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break // a clash the fold missed (a file system's own) takes the next name
		}
	}
	if err != nil {
		return "", nil, fmt.Errorf("staging file %q: %w", original, err)
	}
	s.held++
	return name, f, nil
}

// Reserve returns the name the file the service names original has in
// the stage, without making it: a file listed but not fetched.
func (s *FilesStage) Reserve(original string) string { return UniqueInboxFileName(original, s.used) }

// Remove removes the staged file name (a fetch that failed or was cut at
// the limit); its name stays used.
func (s *FilesStage) Remove(name string) error {
	if err := os.Remove(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing staged file %q: %w", name, err)
	}
	s.held--
	return nil
}

// Done makes the stage's names durable, and the stage's in its session's
// directory; a stage left empty (every file skipped) is removed. Each
// file was fsynced when written (SyncFile).
func (s *FilesStage) Done() error {
	if s.made && s.held == 0 {
		s.made = false
		return removeTree(s.dir)
	}
	if !s.made {
		return nil
	}
	if err := atomicfile.SyncDir(s.dir); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(s.dir))
}

// Discard removes the stage, whatever it holds.
func (s *FilesStage) Discard() error { return removeTree(s.dir) }

// PublishInboxFiles renames the files stage of the reply file in
// session's inbox into place, durably; moved says it did. No stage is
// success: the reply had no files, or they were published already. A
// files directory already there is never replaced: the stage is removed,
// and what is there stays what readers see.
func PublishInboxFiles(d Dirs, session, file string) (moved bool, err error) {
	if !ValidInboxSession(session) || !ValidInboxFile(file) {
		return false, fmt.Errorf("files of %q of session %q: not a name this bus writes", file, session)
	}
	dir := filepath.Join(d.Inbox, session)
	stage, final := filepath.Join(dir, filesStageName(file)), filepath.Join(dir, InboxFilesDir(file))
	st, err := atomicfile.Lstat(stage)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("files of %s: %w", file, err)
	}
	if !st.IsDir() {
		return false, fmt.Errorf("files of %s: %s is not a directory; left as it is", file, stage)
	}
	err = platform.PublishStaged(stage, final)
	if errors.Is(err, platform.ErrExist) {
		return false, removeTree(stage)
	}
	return err == nil, err
}

// RemoveStagedInboxFiles removes the files stage of a reply no record
// names: it never landed, and will be delivered (and fetched) again.
func RemoveStagedInboxFiles(d Dirs, s StagedInbox) error {
	if !ValidInboxSession(s.Session) || !ValidInboxFile(s.File) {
		return fmt.Errorf("files stage of %q of session %q: not a name this bus writes", s.File, s.Session)
	}
	return removeTree(filepath.Join(d.Inbox, s.Session, filesStageName(s.File)))
}

// ListStagedInboxFiles returns the files stages in the inbox's session
// directories, each by its reply's inbox file.
func ListStagedInboxFiles(d Dirs) ([]StagedInbox, error) {
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
			continue
		}
		entries, err := readDirNoFollow(filepath.Join(d.Inbox, s.Name()))
		if err != nil {
			return nil, fmt.Errorf("list inbox of session %q: %w", s.Name(), err)
		}
		for _, e := range entries {
			n := e.Name()
			if !strings.HasPrefix(n, ".") || !strings.HasSuffix(n, filesStageSuffix) {
				continue
			}
			if file := strings.TrimSuffix(n[1:], filesStageSuffix) + ".json"; ValidInboxFile(file) {
				out = append(out, StagedInbox{Session: s.Name(), File: file})
			}
		}
	}
	return out, nil
}

// removeTree removes path and, if it is a directory, what it holds,
// never following a symbolic link (os.RemoveAll opens each directory
// without following one), then makes the removal durable.
func removeTree(path string) error {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return atomicfile.SyncDir(filepath.Dir(path))
}
