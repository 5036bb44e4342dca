package bus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// ErrJournalClosed is returned by Append after Close, or after a failed
// write or fsync: from then on what the file holds past its last fsync is
// unknown, so nothing more is appended to it. Reopening it (OpenJournal)
// drops a torn tail and goes on.
var ErrJournalClosed = errors.New("journal closed")

// Journal appends records to a daemon's relay journal, durably, with
// group commit: Append hands its lines to one syncer goroutine, which
// writes everything pending in one write and makes it durable with one
// fsync, for every caller that was waiting. Under load many records
// share an fsync; alone, a record costs exactly one.
type Journal struct {
	f    *os.File
	torn int64

	mu      sync.Mutex
	pending []byte  // lines not yet handed to the syncer
	batch   *commit // what the callers of pending wait on
	err     error   // sticky: set by a failed write or sync, or Close
	closed  bool
	wake    chan struct{}
	done    chan struct{} // closed when the syncer has exited

	records, syncs atomic.Int64
	wakeups        atomic.Int64 // for tests: how often the syncer looked

	// beforeWrite, when set (by tests, before the first Append), is called
	// by the syncer before each group's write.
	beforeWrite func()
}

// commit is one group commit: done is closed once its lines are durable
// (err nil) or could not be made so.
type commit struct {
	done chan struct{}
	err  error
}

// JournalStats counts what a Journal made durable: Records appended, and
// the fsyncs (Syncs) that made them so.
type JournalStats struct{ Records, Syncs int64 }

// JournalPath is where the relay journal of the bus d lives (DESIGN 5).
func (d Dirs) JournalPath() string { return filepath.Join(d.Dir, "journal") }

// OpenJournal opens the journal at path for appending, creating it (0600)
// when missing. It refuses, without blocking and touching nothing, a
// symbolic link, a FIFO, anything but a regular file, another uid's file
// and one that group or others may write (ErrUnsafeJournal). A final line
// without its newline is a write torn by a crash, never acknowledged to
// anyone: it is cut off before the first append (TornBytes says how many
// bytes). The caller must Close the Journal.
func OpenJournal(path string) (*Journal, error) {
	f, created, err := openJournalFile(path, unix.O_RDWR|unix.O_APPEND|unix.O_CREAT)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	torn, err := cutTornTail(f)
	if err == nil && created {
		err = syncDir(filepath.Dir(path))
	}
	if err == nil {
		// The file is a regular one now: blocking I/O from here on.
		err = unix.SetNonblock(int(f.Fd()), false)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open journal %s: %w", path, err)
	}
	j := &Journal{f: f, torn: torn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go j.syncer()
	return j, nil
}

// cutTornTail truncates f after its last newline, durably, and returns
// how many bytes it dropped. A tail longer than a line can be is no torn
// record: it is refused, and the file left as it is.
func cutTornTail(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	if size == 0 {
		return 0, nil
	}
	n := min(size, MaxJournalLine)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil {
		return 0, fmt.Errorf("read tail: %w", err)
	}
	last := -1
	for i := len(buf) - 1; i >= 0; i-- {
		if buf[i] == '\n' {
			last = i
			break
		}
	}
	if last == len(buf)-1 {
		return 0, nil
	}
	if last < 0 && size > n {
		return 0, fmt.Errorf("its last %d bytes hold no newline: not a torn record", n)
	}
	keep := size - n + int64(last) + 1
	if err := f.Truncate(keep); err != nil {
		return 0, fmt.Errorf("cut torn tail: %w", err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("cut torn tail: %w", err)
	}
	return size - keep, nil
}

// TornBytes is how many bytes of a torn final line OpenJournal cut off.
func (j *Journal) TornBytes() int64 { return j.torn }

// Stats returns the counters since OpenJournal.
func (j *Journal) Stats() JournalStats {
	return JournalStats{Records: j.records.Load(), Syncs: j.syncs.Load()}
}

// Append validates recs (nothing is written if one is invalid), appends
// them as one line each, and returns once they are durable. The records
// of one call are written together, in order, in one write. If ctx ends
// first Append returns its error, and the records may still become
// durable: as an attempt is written before its request, a record without
// its request is safe; never the other way round.
func (j *Journal) Append(ctx context.Context, recs ...Record) error {
	if len(recs) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("journal append: %w", err)
	}
	lines, err := encodeRecords(recs)
	if err != nil {
		return fmt.Errorf("journal append: %w", err)
	}
	return j.appendLines(ctx, lines, len(recs))
}

// appendLines hands n encoded records (lines) to the syncer and waits
// until they are durable.
func (j *Journal) appendLines(ctx context.Context, lines []byte, n int) error {
	j.mu.Lock()
	if j.err != nil {
		err := j.err
		j.mu.Unlock()
		return fmt.Errorf("journal append: %w", err)
	}
	j.pending = append(j.pending, lines...)
	if j.batch == nil {
		j.batch = &commit{done: make(chan struct{})}
	}
	c := j.batch
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default: // the syncer is already due to look
	}
	select {
	case <-c.done:
		if c.err != nil {
			return fmt.Errorf("journal append: %w", c.err)
		}
		j.records.Add(int64(n))
		return nil
	case <-ctx.Done():
		return fmt.Errorf("journal append: %w (the records may still become durable)", ctx.Err())
	}
}

// syncer writes and fsyncs what is pending, one group at a time, until
// Close. While it syncs one group the next gathers.
func (j *Journal) syncer() {
	defer close(j.done)
	var spare []byte
	for {
		<-j.wake
		j.mu.Lock()
		c, closing := j.batch, j.err != nil
		var data []byte
		if c != nil {
			// Swap buffers only when taking a group: a wake with nothing
			// pending must not hand pending the buffer spare still names.
			data = j.pending
			j.pending, j.batch = spare[:0], nil
		}
		j.mu.Unlock()
		j.wakeups.Add(1)
		if c != nil {
			if j.beforeWrite != nil {
				j.beforeWrite()
			}
			err := j.writeSync(data)
			if err != nil {
				j.mu.Lock()
				if j.err == nil {
					j.err = fmt.Errorf("%w: %w", ErrJournalClosed, err)
				}
				closing = true
				j.mu.Unlock()
			}
			c.err = err
			close(c.done)
			spare = data // written: it gathers the group after next
		}
		if closing {
			j.failPending()
			return
		}
	}
}

// failPending ends the waits of records that came in after the last
// group: they were never written.
func (j *Journal) failPending() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if c := j.batch; c != nil {
		c.err = j.err
		close(c.done)
		j.pending, j.batch = nil, nil
	}
}

func (j *Journal) writeSync(data []byte) error {
	if _, err := j.f.Write(data); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	j.syncs.Add(1)
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("fsync: %w", err)
	}
	return nil
}

// Close waits for the records already handed to Append to be durable,
// then closes the file. Appends after Close fail with ErrJournalClosed.
func (j *Journal) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.closed = true
	if j.err == nil {
		j.err = ErrJournalClosed
	}
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
	<-j.done
	if err := j.f.Close(); err != nil {
		return fmt.Errorf("close journal: %w", err)
	}
	return nil
}
