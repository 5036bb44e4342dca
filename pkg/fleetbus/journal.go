package fleetbus

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/relay"
)

// Journal is a relay journal kept in etcd (relay.JournalStore): every
// machine that may own the name reads the same one, so a takeover knows
// which parts were attempted and which were done.
type Journal struct {
	owner Owner
	dir   string

	mu  sync.Mutex
	seq uint64 // the last seq used or seen; never used twice

	records, txns atomic.Int64
}

var _ relay.JournalStore = (*Journal)(nil)

// NewJournal is the journal of the name o owns.
func NewJournal(o Owner) *Journal { return &Journal{owner: o, dir: o.Dir()} }

func (j *Journal) String() string { return "etcd " + journalPrefix(j.dir) }

// pageSize is how many records a Replay reads at a time.
const pageSize = 1000

// Replay reads the records in key order, a page at a time. A key or a
// value that is not a record the relay wrote stops it with an error that
// names the key: nothing is posted on a journal that cannot be proven.
func (j *Journal) Replay(ctx context.Context, fn func(bus.Record) error) error {
	return j.scan(ctx, func(key string, seq uint64, value []byte) error {
		rec, err := bus.ParseRecord(value)
		if err != nil {
			return fmt.Errorf("journal record %s: %w", key, err)
		}
		return fn(rec)
	})
}

// scan calls fn with every key of the journal, in order, and keeps seq
// past the highest one seen.
func (j *Journal) scan(ctx context.Context, fn func(key string, seq uint64, value []byte) error) error {
	prefix := journalPrefix(j.dir)
	from := prefix
	end := clientv3.GetPrefixRangeEnd(prefix)
	for {
		resp, err := j.owner.Client().Get(ctx, from, clientv3.WithRange(end), clientv3.WithLimit(pageSize),
			clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
		if err != nil {
			return fmt.Errorf("reading the relay journal %s: %w", prefix, err)
		}
		for _, kv := range resp.Kvs {
			key := string(kv.Key)
			seq, err := parseSeq(strings.TrimPrefix(key, prefix))
			if err != nil {
				return fmt.Errorf("journal key %s: %w", key, err)
			}
			j.mu.Lock()
			j.seq = max(j.seq, seq)
			j.mu.Unlock()
			if err := fn(key, seq, kv.Value); err != nil {
				return err
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// parseSeq reads the 20 decimal digits Append writes.
func parseSeq(s string) (uint64, error) {
	if len(s) != 20 || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("not a journal sequence number (20 decimal digits)")
	}
	return strconv.ParseUint(s, 10, 64)
}

// Open returns the journal for appending; Replay first, so seq is past
// every record already there.
func (j *Journal) Open(context.Context) (relay.Journal, error) { return handle{j}, nil }

type handle struct{ j *Journal }

func (h handle) Append(ctx context.Context, recs ...bus.Record) error {
	return h.j.Append(ctx, recs...)
}
func (h handle) Stats() bus.JournalStats {
	return bus.JournalStats{Records: h.j.records.Load(), Syncs: h.j.txns.Load()}
}
func (h handle) Close() error { return nil }

// Append writes recs, in order, in one transaction fenced by the owner's
// claim. Their sequence numbers are taken before the transaction and
// never given out again: a transaction whose answer was lost may still
// have committed, and its keys must not be written over.
func (j *Journal) Append(ctx context.Context, recs ...bus.Record) error {
	if len(recs) == 0 {
		return nil
	}
	if len(recs) > maxOps {
		return fmt.Errorf("relay journal: %d records in one append, over %d", len(recs), maxOps)
	}
	values := make([][]byte, len(recs))
	for i, r := range recs {
		if err := bus.ValidateRecord(r); err != nil {
			return fmt.Errorf("relay journal: record %s: %w", r.Key(), err)
		}
		v, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("relay journal: record %s: %w", r.Key(), err)
		}
		if len(v) >= bus.MaxJournalLine {
			return fmt.Errorf("relay journal: record %s is %d bytes, over %d", r.Key(), len(v), bus.MaxJournalLine-1)
		}
		values[i] = v
	}
	j.mu.Lock()
	first := j.seq + 1
	j.seq += uint64(len(recs))
	j.mu.Unlock()
	ops := make([]clientv3.Op, len(recs))
	for i, v := range values {
		ops[i] = clientv3.OpPut(journalKey(j.dir, first+uint64(i)), string(v))
	}
	j.txns.Add(1)
	if err := j.owner.Guarded(ctx, "writing the relay journal", ops...); err != nil {
		return err
	}
	j.records.Add(int64(len(recs)))
	return nil
}

// Rewrite keeps, of the journal's records, those in recs (a compaction:
// recs is a subsequence of the journal, in order) and deletes the others,
// a fenced transaction per batch. Stopped halfway, it has deleted only
// records that were not to be kept.
func (j *Journal) Rewrite(ctx context.Context, recs []bus.Record) error {
	next := 0
	var drop []string
	err := j.scan(ctx, func(key string, _ uint64, value []byte) error {
		if next < len(recs) {
			if rec, err := bus.ParseRecord(value); err == nil && rec == recs[next] {
				next++
				return nil
			}
		}
		drop = append(drop, key)
		return nil
	})
	if err != nil {
		return err
	}
	if next != len(recs) {
		return fmt.Errorf("compacting the relay journal: %d of %d records to keep not found in order; nothing deleted", len(recs)-next, len(recs))
	}
	for len(drop) > 0 {
		n := min(len(drop), maxOps)
		ops := make([]clientv3.Op, n)
		for i, k := range drop[:n] {
			ops[i] = clientv3.OpDelete(k)
		}
		if err := j.owner.Guarded(ctx, "compacting the relay journal", ops...); err != nil {
			return err
		}
		drop = drop[n:]
	}
	return nil
}

// Live adds the ids waiting in the fleet's outbox: their records stay.
func (j *Journal) Live(ctx context.Context, ids map[string]bool) error {
	prefix := outboxPrefix(j.dir)
	resp, err := j.owner.Client().Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return fmt.Errorf("listing the fleet's outbox %s: %w", prefix, err)
	}
	for _, kv := range resp.Kvs {
		ids[strings.TrimPrefix(string(kv.Key), prefix)] = true
	}
	return nil
}
