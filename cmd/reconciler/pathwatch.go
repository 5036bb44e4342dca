package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// pathWatch pokes Changes whenever the file at path may have changed,
// including while the file or any dir on the way to it does not exist yet:
// it watches the deepest dir of the way that exists, and moves down as the
// others appear (and up again if they are removed). A file replaced by
// rename is an event in its dir like any write, so an atomic writer is
// followed for good.
type pathWatch struct {
	path    string
	w       *fsnotify.Watcher
	changes chan struct{}
	errs    chan error
	done    chan struct{}

	mu       sync.Mutex
	watching string
}

func newPathWatch(path string) (*pathWatch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	path, err = filepath.Abs(path)
	if err != nil {
		w.Close()
		return nil, err
	}
	p := &pathWatch{path: path, w: w, changes: make(chan struct{}, 1), errs: make(chan error, 1), done: make(chan struct{})}
	if err := p.rearm(); err != nil {
		w.Close()
		return nil, err
	}
	go p.run()
	return p, nil
}

// Changes is poked (never blocking: one pending poke is enough) after any
// event that may have changed the file.
func (p *pathWatch) Changes() <-chan struct{} { return p.changes }

// Errors reports a watch that stopped working.
func (p *pathWatch) Errors() <-chan error { return p.errs }

func (p *pathWatch) Close() error {
	err := p.w.Close()
	<-p.done
	return err
}

func (p *pathWatch) run() {
	defer close(p.done)
	for {
		select {
		case ev, ok := <-p.w.Events:
			if !ok {
				return
			}
			name := filepath.Clean(ev.Name)
			// Other files of the watched dirs are none of this watch's
			// business: only the file and the dirs on the way to it.
			if name != p.path && !strings.HasPrefix(p.path, name+string(filepath.Separator)) {
				continue
			}
			if err := p.rearm(); err != nil {
				p.fail(err)
				return
			}
			poke(p.changes)
		case err, ok := <-p.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: a look finds out what changed.
				poke(p.changes)
				continue
			}
			p.fail(err)
			return
		}
	}
}

func (p *pathWatch) fail(err error) {
	select {
	case p.errs <- err:
	default:
	}
}

// rearm watches the deepest existing dir on the way to the file. A dir
// made between the look and the watch would send no event, so it looks
// again until the two agree.
func (p *pathWatch) rearm() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		dir, err := deepestDir(filepath.Dir(p.path))
		if err != nil {
			return err
		}
		if dir == p.watching {
			return nil
		}
		if err := p.w.Add(dir); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since the look: look again
			}
			return err
		}
		if p.watching != "" {
			_ = p.w.Remove(p.watching) // gone already if it was removed
		}
		p.watching = dir
		// Made meanwhile: the next turn watches it. Something may have
		// appeared in the new dir before its watch: the caller's poke
		// after rearm has it looked at.
	}
}

// deepestDir is dir, or its deepest ancestor that exists as a directory.
func deepestDir(dir string) (string, error) {
	for {
		fi, err := os.Stat(dir)
		switch {
		case err == nil && fi.IsDir():
			return dir, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission):
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no directory on the way to " + dir + " exists")
		}
		dir = parent
	}
}

// poke wakes ch's reader without waiting.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
