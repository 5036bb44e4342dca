package telegram

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// OffsetFile is the file in the daemon's state directory that holds the
// next getUpdates offset: every update below it was landed (or ignored)
// durably, so the service may forget it.
const OffsetFile = "telegram-offset"

// offsetStore persists the getUpdates offset. Its invariant, kept by its
// one caller (the poll loop): an offset is saved only after every update
// below it went through the inbound side, whose Receive returns once a
// landing is durable; the service is told it (and so forgets updates)
// only after it is saved. A crash before the save makes the service send
// the same updates again, which land nowhere twice (the inbound side
// dedupes by message id); a crash after it loses none.
//
// Without a directory (a transport run without a daemon, in tests) it
// keeps the offset in memory only.
type offsetStore struct {
	path string
	mem  int64
}

func newOffsetStore(dir string) *offsetStore {
	if dir == "" {
		return &offsetStore{}
	}
	return &offsetStore{path: filepath.Join(dir, OffsetFile)}
}

// load returns the saved offset, 0 (the service's first unconfirmed
// update) when none was saved.
func (s *offsetStore) load() (int64, error) {
	if s.path == "" {
		return s.mem, nil
	}
	data, err := atomicfile.ReadCapped(s.path, 64)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the telegram offset: %w", err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s holds no offset (%d bytes): remove it to take the service's", s.path, len(data))
	}
	return n, nil
}

// save makes offset durable.
func (s *offsetStore) save(offset int64) error {
	if s.path == "" {
		s.mem = offset
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("saving the telegram offset: %w", err)
	}
	return atomicfile.Write(s.path, []byte(strconv.FormatInt(offset, 10)+"\n"))
}
