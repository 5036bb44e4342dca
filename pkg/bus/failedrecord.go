package bus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// maxFailedRecords bounds the records failed/ keeps for one outbox name.
const maxFailedRecords = 1000

// FailedName is the name of the n-th record (from 1) of the outbox entry
// name in failed/: the first is the entry's own name, so failed/<id>.json
// keeps meaning "id failed"; a later one is marked with "~n" before the
// ".json", a character no id may hold, so it never takes the first
// record's name of another id.
func FailedName(name string, n int) string {
	if n <= 1 {
		return name
	}
	mark := "~" + strconv.Itoa(n)
	if base, ok := strings.CutSuffix(name, ".json"); ok {
		return base + mark + ".json"
	}
	return name + mark
}

// record writes rec to failed/ under the first of its FailedNames that is
// free, never replacing a record: a later failure of the same name keeps
// the earlier one beside it. A record already there saying the same (the
// same entry, reason and content: a failure retried after a crash, or an
// entry left in place failed again after a restart) is that record, and
// nothing is added.
func (b *Box) record(rec FailedRecord) (added bool, err error) {
	data, err := encodeFailed(rec)
	if err != nil {
		return false, err
	}
	tmp := ""
	defer func() {
		if tmp != "" {
			_ = b.failed.Remove(tmp)
		}
	}()
	for n := 1; n <= maxFailedRecords; n++ {
		name := FailedName(rec.Name, n)
		if b.recorded(name, rec) {
			return false, nil
		}
		if tmp == "" {
			if tmp, err = b.failed.Stage(name, data); err != nil {
				return false, err
			}
		}
		err := b.failed.Link(tmp, b.failed, name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return false, err
		}
		return true, b.failed.Sync()
	}
	return false, fmt.Errorf("failed/ already holds %d records of %s", maxFailedRecords, rec.Name)
}

// recorded says whether failed/name is a record saying what rec says.
func (b *Box) recorded(name string, rec FailedRecord) bool {
	data, _, err := b.failed.ReadFile(name, 2*MaxFileSize)
	if err != nil {
		return false
	}
	var got FailedRecord
	if err := json.Unmarshal(data, &got); err != nil {
		return false
	}
	return got.Name == rec.Name && got.Reason == rec.Reason && got.Message == rec.Message
}
