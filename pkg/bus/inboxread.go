package bus

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/platform"
)

// InboxReader reads a daemon's inbox as its consumer does (an agent,
// `reconciler inbox`): every file there came from a chat service through
// the daemon, so each is read capped, without following links, decoded
// strictly and checked against the name it has. A file or directory that
// fails is reported once to skipped and passed over; the rest is still
// read. Reading takes nothing away: the inbox is left as it is.
type InboxReader struct {
	dirs    Dirs
	session string // only this session; "" for every one
	skipped func(path, reason string)

	// seen holds the files returned or reported, so that following reads
	// each once; reported holds the skips reported, so each is reported once.
	seen     map[string]bool
	reported map[string]bool
}

// NewInboxReader reads the inbox of dirs, only session's when session is
// not "". skipped (nil: none) hears each file or directory passed over
// and why; the reason says "it" for the path.
func NewInboxReader(dirs Dirs, session string, skipped func(path, reason string)) *InboxReader {
	return &InboxReader{dirs: dirs, session: session, skipped: skipped, seen: map[string]bool{}, reported: map[string]bool{}}
}

// Skipped reports whether anything was passed over so far.
func (r *InboxReader) Skipped() bool { return len(r.reported) > 0 }

// report says once that path was passed over and why. The platform's
// errors name the path already: once is enough.
func (r *InboxReader) report(path, reason string) {
	reason = strings.Replace(reason, path, "it", 1)
	line := path + ": " + reason
	if r.reported[line] {
		return
	}
	r.reported[line] = true
	if r.skipped != nil {
		r.skipped(path, reason)
	}
}

// Scan returns the messages not returned before, sorted by (ts, id), and
// the session directories it read (to be watched when following). An
// inbox that does not exist yet holds nothing; one that is not a
// directory of ours (a symbolic link) is an error.
func (r *InboxReader) Scan() ([]InboxMessage, []string, error) {
	if fi, err := os.Lstat(r.dirs.Dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("inbox: %w", err)
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("inbox: %s is not a directory (mode %v): refusing to read through it", r.dirs.Dir, fi.Mode().Type())
	}
	entries, err := readDirNoFollow(r.dirs.Inbox)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("inbox: %w", err)
	}
	var msgs []InboxMessage
	var sessions []string
	for _, e := range entries {
		name := e.Name()
		if r.session != "" && name != r.session {
			continue
		}
		dir := filepath.Join(r.dirs.Inbox, name)
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			r.report(dir, "a symbolic link, not a session directory")
			continue
		case !e.IsDir():
			r.report(dir, "not a session directory")
			continue
		case !ValidInboxSession(name):
			r.report(dir, "not a valid session name")
			continue
		}
		sessions = append(sessions, dir)
		msgs = append(msgs, r.scanSession(dir, name)...)
	}
	slices.SortFunc(msgs, func(a, b InboxMessage) int {
		return cmp.Or(cmp.Compare(a.TS, b.TS), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Session, b.Session))
	})
	return msgs, sessions, nil
}

// scanSession reads the files of one session's directory not seen before.
func (r *InboxReader) scanSession(dir, session string) []InboxMessage {
	entries, err := readDirNoFollow(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed since the listing: its reader took it
	}
	if err != nil {
		r.report(dir, err.Error())
		return nil
	}
	var msgs []InboxMessage
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if strings.HasPrefix(name, ".") || r.seen[path] {
			continue // a stage: not landed yet
		}
		if isFilesDir(name) && e.IsDir() {
			continue // a reply's files: listed in the reply, read from there
		}
		m, err := readInboxFile(path, session, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // its reader took it since the listing
		}
		r.seen[path] = true
		if err != nil {
			r.report(path, err.Error())
			continue
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// readInboxFile reads one file of session's inbox directory: a regular
// file (never a link, a FIFO or a device), at most MaxInboxFileSize bytes,
// decoded strictly, holding the session of its directory and the message
// its name says.
func readInboxFile(path, session, name string) (InboxMessage, error) {
	data, err := atomicfile.ReadCapped(path, MaxInboxFileSize)
	if err != nil {
		return InboxMessage{}, err
	}
	m, err := DecodeInbox(data)
	if err != nil {
		return InboxMessage{}, err
	}
	if m.Session != session {
		return InboxMessage{}, fmt.Errorf("holds a message of session %q, not of its directory's", m.Session)
	}
	want, err := InboxFileName(m)
	if err != nil {
		return InboxMessage{}, err
	}
	if want != name {
		return InboxMessage{}, fmt.Errorf("holds message %q sent at %s, whose file is named %q", m.ID, m.TS, want)
	}
	return m, nil
}

// readDirNoFollow lists dir, refusing a symbolic link in its place: a
// link swapped in after the look would list another directory.
func readDirNoFollow(dir string) ([]fs.DirEntry, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	switch {
	case err == unix.ELOOP || err == unix.ENOTDIR:
		return nil, fmt.Errorf("%s is not a directory (a symbolic link?): refusing to read through it", dir)
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// isFilesDir reports whether name is a reply's files directory's.
func isFilesDir(name string) bool {
	base, ok := strings.CutSuffix(name, ".files")
	return ok && ValidInboxFile(base+".json")
}

// LandedFile says whether f, a file listed in a reply of session, is
// here: a regular file of ours in the reply's files directory, reached
// without following any link (a path read from an inbox file came from a
// chat service, and may have come from another machine of the fleet,
// whose files stay there). Its size, or an error saying why not
// (fs.ErrNotExist: not on this machine).
func LandedFile(d Dirs, session string, f InboxFile) (int64, error) {
	dirName, name, ok := strings.Cut(f.Path, "/")
	if f.Skipped != "" || !ok || !isFilesDir(dirName) || !validInboxFileName(name) || !ValidInboxSession(session) {
		return 0, fmt.Errorf("inbox file %q: not a landed file's path", f.Path)
	}
	sd, err := platform.OpenPrivateDir(filepath.Join(d.Inbox, session))
	if err != nil {
		return 0, err
	}
	defer sd.Close()
	fd, err := sd.OpenPrivateDir(dirName)
	if err != nil {
		return 0, err
	}
	defer fd.Close()
	e, err := fd.Stat(name)
	if err != nil {
		return 0, err
	}
	if !e.Regular() || !e.Mine() {
		return 0, fmt.Errorf("%s: not a regular file of ours", filepath.Join(fd.Path(), name))
	}
	return e.Size, nil
}
