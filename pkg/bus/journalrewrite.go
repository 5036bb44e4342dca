package bus

import (
	"fmt"
	"io/fs"

	"gjc.dev/reconciler/pkg/atomicfile"
	"golang.org/x/sys/unix"
)

// RewriteJournal compacts the journal at path: it is replaced, atomically
// and durably (temp file, fsync, rename, directory fsync), by one holding
// exactly recs, in order. All are validated first; on any error the old
// journal is left as it was. What is there must be a private regular file
// of ours, or nothing.
//
// The caller must have closed its Journal on path and must not open one
// until this returns: a Journal still open would go on appending to the
// old file, which the rename has unlinked, and those records would be
// lost.
func RewriteJournal(path string, recs []Record) error {
	data, err := encodeRecords(recs)
	if err != nil {
		return fmt.Errorf("rewrite journal %s: %w", path, err)
	}
	return rewriteLines(path, data)
}

// rewriteLines replaces the journal at path by data, as RewriteJournal
// describes.
func rewriteLines(path string, data []byte) error {
	if err := checkJournalPath(path); err != nil {
		return fmt.Errorf("rewrite journal: %w", err)
	}
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("rewrite journal: %w", err)
	}
	return nil
}

// checkJournalPath refuses a path that is there and is not a journal we
// could have written. Lstat, never open: it may be a FIFO.
func checkJournalPath(path string) error {
	var st unix.Stat_t
	err := unix.Lstat(path, &st)
	if err == unix.ENOENT {
		return nil
	}
	if err != nil {
		return &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return judgeJournal(path, st)
}
