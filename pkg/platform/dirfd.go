package platform

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// Dir is a directory held by an open descriptor, judged private through
// that descriptor when opened. Its entries are reached relative to the
// descriptor and never through a symbolic link, so a name swapped for a
// link after the judgment (the directory itself or an entry in it) is
// never followed somewhere else.
type Dir struct {
	f    *os.File
	path string
}

// OpenPrivateDir opens the directory at path without following a
// symbolic link at its last element, and judges it by its descriptor as
// atomicfile.CheckPrivateDir does by its name: a directory, owned by the
// effective uid, not writable by group or others. A refusal matches
// ErrNotPrivate; nothing is created or changed.
func OpenPrivateDir(path string) (*Dir, error) {
	return openPrivateAt(unix.AT_FDCWD, path, path)
}

// OpenPrivateDir opens d's subdirectory name the same way.
func (d *Dir) OpenPrivateDir(name string) (*Dir, error) {
	if err := checkEntryName(name); err != nil {
		return nil, err
	}
	return openPrivateAt(d.fd(), name, filepath.Join(d.path, name))
}

func openPrivateAt(dirfd int, name, path string) (*Dir, error) {
	fd, err := openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		// Say what is there instead, without following it.
		if st, lerr := fstatat(dirfd, name, path); lerr == nil {
			if jerr := atomicfile.JudgePrivate(st, path); jerr != nil {
				return nil, jerr
			}
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	st, err := atomicfile.Fstat(fd, path)
	if err == nil {
		err = atomicfile.JudgePrivate(st, path)
	}
	if err != nil {
		atomicfile.CloseFD(fd)
		return nil, err
	}
	return &Dir{f: os.NewFile(uintptr(fd), path), path: path}, nil
}

// Path is the path d was opened by, for messages.
func (d *Dir) Path() string { return d.path }

// Close releases the descriptor.
func (d *Dir) Close() error { return d.f.Close() }

func (d *Dir) fd() int { return int(d.f.Fd()) }

// Names returns every name in d ("." and ".." left out), unsorted.
func (d *Dir) Names() ([]string, error) {
	if _, err := d.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: %w", d.path, err)
	}
	names, err := d.f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.path, err)
	}
	return names, nil
}

// Entry is what d's entry is, as lstat says: never what a link names.
type Entry struct {
	Type    fs.FileMode // the type bits only: 0 for a regular file
	UID     uint32
	Size    int64
	ModTime time.Time
}

// Regular: a regular file.
func (e Entry) Regular() bool { return e.Type == 0 }

// Same: e and o describe the entry alike (type, owner, size, mtime).
func (e Entry) Same(o Entry) bool {
	return e.Type == o.Type && e.UID == o.UID && e.Size == o.Size && e.ModTime.Equal(o.ModTime)
}

// Mine: owned by the effective uid.
func (e Entry) Mine() bool { return e.UID == uint32(os.Geteuid()) }

// Stat describes d's entry name without following it.
func (d *Dir) Stat(name string) (Entry, error) {
	if err := checkEntryName(name); err != nil {
		return Entry{}, err
	}
	st, err := fstatat(d.fd(), name, filepath.Join(d.path, name))
	if err != nil {
		return Entry{}, err
	}
	return entryOf(st), nil
}

func entryOf(st atomicfile.Stat) Entry {
	var t fs.FileMode
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		t = fs.ModeDir
	case unix.S_IFLNK:
		t = fs.ModeSymlink
	case unix.S_IFIFO:
		t = fs.ModeNamedPipe
	case unix.S_IFSOCK:
		t = fs.ModeSocket
	case unix.S_IFCHR:
		t = fs.ModeDevice | fs.ModeCharDevice
	default:
		t = fs.ModeDevice
	}
	return Entry{Type: t, UID: st.UID, Size: st.Size, ModTime: time.Unix(0, st.MtimeNs)}
}

// ReadFile reads d's entry name, capped at max bytes (ErrTooLarge), and
// says what it was. Only a regular file of the effective uid is opened:
// anything else (a symbolic link, a FIFO, another uid's file) is refused
// with ErrUnsafeFile, unopened.
func (d *Dir) ReadFile(name string, max int64) ([]byte, Entry, error) {
	path := filepath.Join(d.path, name)
	e, err := d.Stat(name)
	if err != nil {
		return nil, Entry{}, err
	}
	if err := e.trusted(path); err != nil {
		return nil, e, err
	}
	fd, err := openat(d.fd(), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err != nil {
		return nil, e, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer atomicfile.CloseFD(fd)
	st, err := atomicfile.Fstat(fd, path)
	if err != nil {
		return nil, e, err
	}
	// The name may have been pointed at another file since the lstat.
	e = entryOf(st)
	if err := e.trusted(path); err != nil {
		return nil, e, err
	}
	if e.Size > max {
		return nil, e, fmt.Errorf("%w: %s is %d bytes, over %d", ErrTooLarge, path, e.Size, max)
	}
	data, err := atomicfile.ReadCappedFD(fd, path, max, e.Size)
	return data, e, err
}

// trusted refuses an entry that is not a regular file of ours.
func (e Entry) trusted(path string) error {
	if !e.Regular() {
		return fmt.Errorf("%w: %s is not a regular file (%v)", ErrUnsafeFile, path, e.Type)
	}
	if !e.Mine() {
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrUnsafeFile, path, e.UID, os.Geteuid())
	}
	return nil
}

// Link makes toName in to a second name of d's entry name, never
// replacing anything (an existing toName matches fs.ErrExist) and never
// following a link at name.
func (d *Dir) Link(name string, to *Dir, toName string) error {
	if err := checkEntryName(name); err != nil {
		return err
	}
	if err := checkEntryName(toName); err != nil {
		return err
	}
	for {
		err := unix.Linkat(d.fd(), name, to.fd(), toName, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.LinkError{Op: "link", Old: filepath.Join(d.path, name), New: filepath.Join(to.path, toName), Err: err}
		}
		return nil
	}
}

// Remove unlinks d's entry name (never a directory).
func (d *Dir) Remove(name string) error {
	if err := checkEntryName(name); err != nil {
		return err
	}
	if err := unix.Unlinkat(d.fd(), name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: filepath.Join(d.path, name), Err: err}
	}
	return nil
}

// Stage writes data to a new hidden temp file in d (mode 0600, fsynced)
// for target, and returns its name: link it into place, then Remove it.
func (d *Dir) Stage(target string, data []byte) (string, error) {
	if err := checkEntryName(target); err != nil {
		return "", err
	}
	for range 10 {
		tmp := filepath.Base(atomicfile.TransientName(target, atomicfile.TempInfix))
		fd, err := openat(d.fd(), tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", &fs.PathError{Op: "create", Path: filepath.Join(d.path, tmp), Err: err}
		}
		f := os.NewFile(uintptr(fd), filepath.Join(d.path, tmp))
		err = f.Chmod(0o600)
		if err == nil {
			err = atomicfile.WriteSyncClose(f, data)
		} else {
			_ = f.Close()
		}
		if err != nil {
			_ = d.Remove(tmp)
			return "", fmt.Errorf("stage %s: %w", filepath.Join(d.path, tmp), err)
		}
		return tmp, nil
	}
	return "", fmt.Errorf("stage %s: too many name collisions", filepath.Join(d.path, target))
}

// Sync makes the names created or removed in d durable (unless a caller
// defers that: atomicfile.DeferDirSyncs).
func (d *Dir) Sync() error {
	return atomicfile.SyncOpenDir(d.f, d.path)
}

// checkEntryName refuses what is not one name in a directory.
func checkEntryName(name string) error {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name || containsNUL(name) {
		return fmt.Errorf("%q: not a name in a directory", name)
	}
	return nil
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0o600)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func fstatat(dirfd int, name, path string) (atomicfile.Stat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return atomicfile.Stat{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return atomicfile.StatOf(&st), nil
}
