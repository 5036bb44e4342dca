package inbound

import (
	"maps"
	"time"
)

// Health is what the inbound side has done since the daemon started.
type Health struct {
	Landed     int64
	Duplicates int64
	// Ignored counts the events that could not land, by why.
	Ignored      map[Reason]int64
	LastLandedAt time.Time
	// Unreacted is how many landed messages still wait for their 👀.
	Unreacted int
	// Owed is how many replies could not land yet and are being tried
	// again.
	Owed int
	// Failures counts landings and history reads that failed (and will
	// be tried again); Error is the latest, "" once a landing succeeded
	// since with no reply owed.
	Failures int64
	Error    string
	// Missed counts the replies a history sweep landed that the live
	// connection had not delivered (sweep.go).
	Missed int64
	// LastLag is the latest landed reply's inbound lag: from its
	// service timestamp to its landing.
	LastLag time.Duration
	// Asks counts the asks and the clicks on them (ask.go).
	Asks AskCounts
	// Files counts the files of the replies landed (files.go).
	Files FileCounts
}

// FileCounts are the files of the landed replies: fetched and landed
// (Bytes in all), or skipped (over the size limit, refused by the
// service).
type FileCounts struct{ Landed, Skipped, Bytes int64 }

// AskCounts are the asks' numbers: Open is how many wait for a decision
// now; the others count since the daemon started.
type AskCounts struct {
	Open, Decided, Expired int64
	// Refused counts clicks by people who may not decide; Unknown clicks
	// on buttons of no ask of ours.
	Refused, Unknown int64
}

// Health returns a copy of the current counters.
func (in *Inbound) Health() Health {
	in.mu.Lock()
	defer in.mu.Unlock()
	h := in.health
	h.Ignored = maps.Clone(in.health.Ignored)
	return h
}

// IgnoredTotal is the sum of h.Ignored.
func (h Health) IgnoredTotal() int64 {
	var n int64
	for _, v := range h.Ignored {
		n += v
	}
	return n
}

// changed pokes Options.Changed; in.mu is held (Changed must not call
// back into the Inbound).
func (in *Inbound) changed() { in.opts.Changed() }

func (in *Inbound) setError(msg string) {
	in.mu.Lock()
	in.health.Error = msg
	in.mu.Unlock()
	in.changed()
}
