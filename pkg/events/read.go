package events

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"

	"gjc.dev/reconciler/pkg/linefile"
)

// maxRead caps what is read of one file: a file grown past MaxSize (a
// rotation lock held elsewhere, or a file someone else wrote) is read from
// its last maxRead bytes. Lines are capped at MaxLine; longer ones are not
// events this package wrote, and are skipped.
const maxRead = 2 * MaxSize

// History is what Read found: the events, oldest first, and how many lines
// were skipped as not valid events.
type History struct {
	Events  []Event
	Skipped int
}

// Read returns the events of the history at path and its rotated files,
// ordered by time, only those of names when names are given. A missing
// history is an empty one.
func Read(path string, names []string) (History, error) {
	var h History
	for i := Backups; i >= 0; i-- {
		p := path
		if i > 0 {
			p = rotated(path, i)
		}
		if err := h.readFile(p, nil, names); err != nil {
			return h, err
		}
	}
	h.sort()
	return h, nil
}

// readFile adds the events of the file at p (or of f, already open, up to
// its size when opened) to h.
func (h *History) readFile(p string, open *os.File, names []string) error {
	f, fi := open, os.FileInfo(nil)
	var err error
	if f == nil {
		f, fi, err = linefile.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer f.Close()
	} else if fi, err = f.Stat(); err != nil {
		return err
	}
	size := fi.Size()
	_, err = h.readRange(f, max(0, size-maxRead), size, names)
	return err
}

// readRange adds the events of f between from and to, and returns the
// offset just past the last whole line.
func (h *History) readRange(f *os.File, from, to int64, names []string) (int64, error) {
	return linefile.ReadLines(f, from, to, MaxLine, false, func(l linefile.Line) error {
		if e, ok := h.parse(l); ok && wanted(e, names) {
			h.Events = append(h.Events, e)
		}
		return nil
	})
}

// parse decodes one line; what is not a valid event is counted.
func (h *History) parse(l linefile.Line) (Event, bool) {
	var e Event
	if l.Truncated || json.Unmarshal(l.Text, &e) != nil || e.check() != nil {
		h.Skipped++
		return Event{}, false
	}
	return e, true
}

func (h *History) sort() {
	// Stable: events of one instant keep the order they were written in.
	slices.SortStableFunc(h.Events, func(a, b Event) int { return a.Time.Compare(b.Time) })
}

func wanted(e Event, names []string) bool {
	return len(names) == 0 || slices.Contains(names, e.Name)
}

// Follow sends the history (as Read would) to history, then every event
// of names appended after it to each, as it is written, until ctx ends.
// It survives the file's rotation. skipped is told each line skipped as
// not a valid event.
func Follow(ctx context.Context, path string, names []string, history func(History), each func(Event), skipped func()) error {
	// Watching begins before anything is read, so nothing written from
	// here on is missed.
	fl, err := linefile.NewFollower(path, MaxLine, func() []string {
		var out []string
		for i := Backups; i >= 1; i-- {
			out = append(out, rotated(path, i))
		}
		return out
	})
	if err != nil {
		return err
	}
	defer fl.Close()
	var h History
	cur, curInfo := fl.File()
	for i := Backups; i >= 1; i-- {
		p := rotated(path, i)
		if fi, err := os.Lstat(p); err == nil && curInfo != nil && os.SameFile(fi, curInfo) {
			continue // rotated since the follower opened it: read as current
		}
		if err := h.readFile(p, nil, names); err != nil {
			return err
		}
	}
	if cur != nil {
		size := curInfo.Size()
		if fi, err := cur.Stat(); err == nil {
			size = fi.Size()
		}
		end, err := h.readRange(cur, max(0, size-maxRead), size, names)
		if err != nil {
			return err
		}
		// From the end of the last whole line: one being written is read
		// whole when it is done.
		fl.Skip(end)
	}
	h.sort()
	history(h)
	var tail History
	return fl.Run(ctx, func(l linefile.Line) error {
		n := tail.Skipped
		if e, ok := tail.parse(l); ok && wanted(e, names) {
			each(e)
		} else if tail.Skipped > n {
			skipped()
		}
		return nil
	})
}
