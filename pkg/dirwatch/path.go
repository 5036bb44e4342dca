package dirwatch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Path follows one file that may not exist yet, nor any dir on the way to
// it (`status -w` before the agent dir is made): it subscribes to the
// deepest dir of the way that exists, filtered on the next name of the
// way, and moves down as the others appear (and up again if they are
// removed). A file replaced by rename is an event in its dir like any
// write, so an atomic writer is followed for good.
type Path struct {
	w       *Watch
	path    string
	changes chan struct{}
	errs    chan error
	stop    chan struct{}
	done    chan struct{}

	// Owned by run once it started: the dir subscribed to, its channel
	// and its cancel.
	dir    string
	sub    <-chan struct{}
	cancel func()
}

// WatchPath starts following path; Close ends it (d stays open). The
// subscription is made before it returns, so a caller that reads the file
// after it misses no change.
func (d *Watch) WatchPath(path string) (*Path, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	p := &Path{w: d, path: path, changes: make(chan struct{}, 1), errs: make(chan error, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if err := p.rearm(); err != nil {
		if p.cancel != nil {
			p.cancel()
		}
		return nil, err
	}
	go p.run()
	return p, nil
}

// Changes is poked (never blocking: one pending poke is enough) after any
// event that may have changed the file, and after events were lost.
func (p *Path) Changes() <-chan struct{} { return p.changes }

// Errors reports a watch that stopped working: no dir on the way could
// be subscribed to.
func (p *Path) Errors() <-chan error { return p.errs }

// Close ends the following.
func (p *Path) Close() error {
	close(p.stop)
	<-p.done
	p.cancel()
	return nil
}

func (p *Path) run() {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		case <-p.sub:
		}
		if err := p.rearm(); err != nil {
			select {
			case p.errs <- err:
			default:
			}
			return
		}
		poke(p.changes)
	}
}

// rearm subscribes to the deepest existing dir on the way to the file. A
// dir made between the look and the subscription would send no event, so
// it looks again until the two agree. Something may have appeared in the
// new dir before its subscription: the poke after rearm has it looked at.
func (p *Path) rearm() error {
	for {
		dir, err := deepestDir(filepath.Dir(p.path))
		if err != nil {
			return err
		}
		if dir == p.dir {
			return nil
		}
		// Other files of the dir are none of this watch's business: only
		// the next name on the way to the file (the dir's own removal
		// reaches every subscriber).
		rel, err := filepath.Rel(dir, p.path)
		if err != nil {
			return err
		}
		next, _, _ := strings.Cut(rel, string(filepath.Separator))
		ch, cancel, err := p.w.Subscribe(dir, func(base string) bool { return base == next })
		if err != nil {
			return err
		}
		if p.cancel != nil {
			p.cancel()
		}
		p.dir, p.sub, p.cancel = dir, ch, cancel
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
