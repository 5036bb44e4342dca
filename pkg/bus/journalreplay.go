package bus

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"golang.org/x/sys/unix"
)

// ReplayJournal calls fn with each record of the journal at path, in
// order, reading it line by line (memory stays at one line, whatever the
// journal's length). A missing journal is an empty one. The path is
// refused without blocking when it is not a private regular file of ours
// (ErrUnsafeJournal). A final line without its newline is a write torn by
// a crash and is no record: it is skipped (OpenJournal cuts it off). Any
// other bad line (over MaxJournalLine, not valid UTF-8, not exactly one
// Record object, invalid) is an error naming its line number: the relay
// refuses to post rather than guess what the journal meant. An error from
// fn stops the replay and is returned as it is.
func ReplayJournal(path string, fn func(Record) error) error {
	return replayLines(path, func(line []byte) error {
		rec, err := ParseRecord(line)
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return fnError{err}
		}
		return nil
	})
}

// fnError carries an error of a replay's callback, which stops the
// replay and is returned as it is: it is no bad line.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// replayLines calls parse with each complete line of the journal at
// path (without its newline), as ReplayJournal describes. An error from
// parse is a bad line, named by its number, unless it is a fnError.
func replayLines(path string, parse func(line []byte) error) error {
	f, _, err := openJournalFile(path, unix.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("replay journal: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, MaxJournalLine)
	for n := 1; ; n++ {
		line, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return fmt.Errorf("replay journal %s: line %d: over %d bytes", path, n, MaxJournalLine)
		case errors.Is(err, io.EOF):
			return nil // nothing left, or a torn tail
		case err != nil:
			return fmt.Errorf("replay journal %s: line %d: %w", path, n, err)
		}
		if err := parse(line[:len(line)-1]); err != nil {
			var fe fnError
			if errors.As(err, &fe) {
				return fe.err
			}
			return fmt.Errorf("replay journal %s: line %d: %w", path, n, err)
		}
	}
}
