package fsstore

import (
	"errors"

	"gjc.dev/reconciler/pkg/ownership"
)

// ReadState reads and parses p.State. The file is opened without following
// a symbolic link and read up to MaxRecordSize; the daemon directory and
// the levels above it must be private. No file or directory is created.
func ReadState(p ownership.Paths) ownership.Record {
	data, exists, err := readContractFile(p, p.State)
	switch {
	case err != nil:
		return ownership.Record{Present: true, Malformed: &ownership.MalformedError{Path: p.State, Err: err}, Paths: p}
	case !exists:
		return ownership.Record{Paths: p}
	}
	rec := ownership.Record{Present: true, Raw: data, Paths: p}
	st, legacy, err := ownership.ParseState(data)
	if err != nil {
		var me *ownership.MalformedError
		if errors.As(err, &me) {
			me.Path = p.State
		}
		rec.Malformed = err
		return rec
	}
	rec.State, rec.Legacy = st, legacy
	return rec
}
