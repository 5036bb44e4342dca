package relay

import (
	"context"

	"gjc.dev/reconciler/pkg/bus"
)

// Journal is an open relay journal: records appended are durable once
// Append returns.
type Journal interface {
	Append(ctx context.Context, recs ...bus.Record) error
	Stats() bus.JournalStats
	Close() error
}

// JournalStore is where a relay's journal lives: the file in its bus on
// one machine (the default), or a store every machine of a fleet reads,
// so a daemon that takes a name over on another machine knows what its
// predecessor attempted and posted.
type JournalStore interface {
	// Replay calls fn with every record, in the order they were appended.
	Replay(ctx context.Context, fn func(bus.Record) error) error
	// Open opens the journal for appending.
	Open(ctx context.Context) (Journal, error)
	// Rewrite replaces the journal by recs (a compaction).
	Rewrite(ctx context.Context, recs []bus.Record) error
	// Live adds, to the ids of the messages in the bus, those the store
	// still holds for delivery elsewhere: compaction keeps their records.
	Live(ctx context.Context, ids map[string]bool) error
}

// fileJournal is the journal file of a bus (DESIGN 5).
type fileJournal struct{ path string }

// FileJournal is the journal at the bus's own journal path.
func FileJournal(d bus.Dirs) JournalStore { return fileJournal{path: journalPath(d)} }

func (f fileJournal) Replay(_ context.Context, fn func(bus.Record) error) error {
	return bus.ReplayJournal(f.path, fn)
}

func (f fileJournal) Open(context.Context) (Journal, error) { return bus.OpenJournal(f.path) }

func (f fileJournal) Rewrite(_ context.Context, recs []bus.Record) error {
	return bus.RewriteJournal(f.path, recs)
}

func (fileJournal) Live(context.Context, map[string]bool) error { return nil }

func (f fileJournal) String() string { return f.path }
