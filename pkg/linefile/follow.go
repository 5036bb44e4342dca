package linefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/dirwatch"
)

// Follower reads the lines appended to a file, woken by file events, as
// `tail -F` does: when the writer renames the file away and starts a new
// one, the old one is read to its end (and kept, for writers that still
// had it open) and the new one from its start. A file cut shorter is read
// again from its start. A writer faster than the reader may rotate more
// than once between two wakes: the files in between are found among the
// rotated files (NewFollower's rotated) and read whole; only a file rotated out of those
// too before the reader woke is missed.
type Follower struct {
	path string
	max  int
	// rotated lists the rotated files, oldest first; nil when unknown.
	rotated func() []string
	watch   *dirwatch.Watch
	changes <-chan struct{}
	cancel  func()
	cur     *tracked // nil while the path does not exist
	prev    *tracked // the file before the last rotation
}

type tracked struct {
	f   *os.File
	fi  os.FileInfo
	off int64
	sp  splitter
}

// NewFollower watches path's directory, then opens path if it exists, so
// nothing written after it returns is missed. Lines are capped at max.
// rotated, when set, lists the files the writer rotates path to, oldest
// first.
func NewFollower(path string, max int, rotated func() []string) (*Follower, error) {
	w, err := dirwatch.New()
	if err != nil {
		return nil, fmt.Errorf("watching %s: %w", path, err)
	}
	base := filepath.Base(path)
	changes, cancel, err := w.Subscribe(filepath.Dir(path), func(b string) bool { return b == base })
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("watching %s: %w", path, err)
	}
	fl := &Follower{path: path, max: max, rotated: rotated, watch: w, changes: changes, cancel: cancel}
	if err := fl.reopen(); err != nil {
		_ = fl.Close()
		return nil, err
	}
	return fl, nil
}

// File is the file followed now and what it was when opened; nil when
// the path does not exist (yet).
func (fl *Follower) File() (*os.File, os.FileInfo) {
	if fl.cur == nil {
		return nil, nil
	}
	return fl.cur.f, fl.cur.fi
}

// Skip starts the current file's reading at off (what the caller has read
// of it already) instead of its start.
func (fl *Follower) Skip(off int64) {
	if fl.cur != nil {
		fl.cur.off = off
	}
}

// Run emits every line as it is completed until ctx ends (nil then) or
// emit or a read fails. A new file at the path that is a symbolic link or
// not a regular file ends it with an error.
func (fl *Follower) Run(ctx context.Context, emit func(Line) error) error {
	for {
		if err := fl.drain(emit); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-fl.changes:
			if !ok {
				return nil
			}
		}
	}
}

// drain reads what was appended to the previous and the current file, then
// switches to a new file at the path if there is one, until nothing changes.
func (fl *Follower) drain(emit func(Line) error) error {
	for {
		for _, t := range []*tracked{fl.prev, fl.cur} {
			if t != nil {
				if err := t.read(fl.path, emit); err != nil {
					return err
				}
			}
		}
		fi, err := os.Lstat(fl.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // renamed away and not yet re-created
		case err != nil:
			return fmt.Errorf("following %s: %w", fl.path, err)
		case fl.cur != nil && os.SameFile(fi, fl.cur.fi):
			return nil
		}
		if fl.prev != nil {
			// Two rotations behind: whatever is left of it is its last line.
			if err := fl.prev.sp.flush(emit); err != nil {
				return err
			}
			_ = fl.prev.f.Close()
		}
		if err := fl.readSkipped(emit); err != nil {
			return err
		}
		fl.prev = fl.cur
		if err := fl.reopen(); err != nil {
			return err
		}
	}
}

// readSkipped reads whole the files rotated after the current one and
// before the one now at the path: rotated more than once since the last
// wake, they were never current here. The current file is found among
// the rotated ones by identity; when it is not there (rotated out of them
// too, or removed) nothing is known to lie between.
func (fl *Follower) readSkipped(emit func(Line) error) error {
	if fl.rotated == nil || fl.cur == nil {
		return nil
	}
	list := fl.rotated()
	after := -1
	for i, p := range list {
		if fi, err := os.Lstat(p); err == nil && os.SameFile(fi, fl.cur.fi) {
			after = i
		}
	}
	if after < 0 {
		return nil
	}
	for _, p := range list[after+1:] {
		f, _, err := Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		t := &tracked{f: f, sp: splitter{max: fl.max}}
		err = t.read(p, emit)
		if err == nil {
			err = t.sp.flush(emit)
		}
		_ = f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// reopen opens the file now at the path as the current one, read from its
// start; a missing file leaves none.
func (fl *Follower) reopen() error {
	f, fi, err := Open(fl.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fl.cur = nil
		return nil
	case err != nil:
		return err
	}
	fl.cur = &tracked{f: f, fi: fi, sp: splitter{max: fl.max}}
	return nil
}

// read emits the lines appended since the last read.
func (t *tracked) read(path string, emit func(Line) error) error {
	if fi, err := t.f.Stat(); err == nil && fi.Size() < t.off {
		t.off = 0 // cut shorter (truncated): read again from the start
		t.sp.reset()
	}
	buf := make([]byte, chunkSize)
	for {
		n, err := t.f.ReadAt(buf, t.off)
		if n > 0 {
			t.off += int64(n)
			if ferr := t.sp.feed(buf[:n], emit); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
	}
}

// Close ends the watch and closes the files.
func (fl *Follower) Close() error {
	fl.cancel()
	err := fl.watch.Close()
	for _, t := range []*tracked{fl.prev, fl.cur} {
		if t != nil {
			_ = t.f.Close()
		}
	}
	return err
}
