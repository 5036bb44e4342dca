package daemonlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gjc.dev/reconciler/pkg/linefile"
	"gjc.dev/reconciler/pkg/ownership"
)

// Bounds of a read. The daemon rotates its log at 10 MiB, so Window holds
// a whole current file; a longer one is read from its last Window bytes.
const (
	MaxLine = 64 << 10
	Window  = 16 << 20
)

// FileName is the daemon's log in its dir.
const FileName = "daemon.log"

// Path is name's daemon.log, after checking that its daemon dir is a
// directory and not a symbolic link (O_NOFOLLOW guards only the file).
func Path(agentDir, name string) (string, error) {
	dir := ownership.PathsFor(agentDir, name).Dir
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s has no daemon dir (%s): it never ran here", name, dir)
	case err != nil:
		return "", err
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", fmt.Errorf("%s is a symbolic link; refusing to read through it", dir)
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return filepath.Join(dir, FileName), nil
}

// Read sends name's daemon.log to emit: its last tail lines, or every line
// (of the last Window bytes) when tail < 0, streamed. cut reports lines
// left out before the window. A missing log has no lines.
func Read(agentDir, name string, tail int, emit func(linefile.Line)) (cut bool, err error) {
	path, err := Path(agentDir, name)
	if err != nil {
		return false, err
	}
	f, fi, err := linefile.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	size := fi.Size()
	if tail < 0 {
		_, err = linefile.ReadLines(f, max(0, size-Window), size, MaxLine, true, func(l linefile.Line) error { emit(l); return nil })
		return size > Window, err
	}
	lines, _, err := linefile.Tail(f, size, tail, Window, MaxLine, true)
	for _, l := range lines {
		emit(l)
	}
	return false, err
}

// Follow sends name's last tail lines (every line when tail < 0), then each
// line as it is written, across the daemon's log rotation, until ctx ends.
func Follow(ctx context.Context, agentDir, name string, tail int, emit func(linefile.Line)) error {
	path, err := Path(agentDir, name)
	if err != nil {
		return err
	}
	fl, err := linefile.NewFollower(path, MaxLine, func() []string { return Backups(path) })
	if err != nil {
		return err
	}
	defer fl.Close()
	if f, fi := fl.File(); f != nil {
		size := fi.Size()
		if cur, err := f.Stat(); err == nil {
			size = cur.Size()
		}
		// Whole lines only: the one being written is followed.
		var end int64
		if tail < 0 {
			end, err = linefile.ReadLines(f, max(0, size-Window), size, MaxLine, false, func(l linefile.Line) error { emit(l); return nil })
		} else {
			var lines []linefile.Line
			lines, end, err = linefile.Tail(f, size, tail, Window, MaxLine, false)
			for _, l := range lines {
				emit(l)
			}
		}
		if err != nil {
			return err
		}
		fl.Skip(end)
	}
	return fl.Run(ctx, func(l linefile.Line) error { emit(l); return nil })
}

// Backups lists the files the daemon's log rotation (lumberjack) renamed
// its log to, oldest first: daemon-<time>.log beside it, whose names sort
// by time.
func Backups(path string) []string {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext) + "-"
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ext) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	slices.Sort(out)
	return out
}
