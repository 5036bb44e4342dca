package bus

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// Journal operations.
const (
	OpAttempt = "attempt" // written (and durable) before a request
	OpDone    = "done"    // written after the service confirmed it
	// OpStage records a service's token for a file part (Slack's file
	// id), durable before the request that makes the file visible
	// (relay.Part.Stage); Remote holds it.
	OpStage = "stage"
)

// Part names of a message's parts, besides the text parts "0", "1", ...
const (
	PartRoot    = "root"    // the session's root message in the channel
	PartThread  = "thread"  // the thread started from the root
	PartArchive = "archive" // the thread archived (and locked) on close
)

// PlacePart names the root or thread part (PartRoot, PartThread) of a
// session's place generation gen: the place as first made is generation
// 0 ("root", "thread"); each time it is made again after a moderator
// deleted it, the next generation ("root:1", "thread:1", ...), so the
// parts of every generation have keys of their own.
func PlacePart(base string, gen int) string {
	if gen <= 0 {
		return base
	}
	return base + ":" + strconv.Itoa(gen)
}

// ParsePlacePart is PlacePart's inverse: the base (PartRoot or
// PartThread) and generation of a place part; ok false for any other
// part name, and for a generation written other than PlacePart writes it.
func ParsePlacePart(part string) (base string, gen int, ok bool) {
	base, n, hasGen := strings.Cut(part, ":")
	if base != PartRoot && base != PartThread {
		return "", 0, false
	}
	if !hasGen {
		return base, 0, true
	}
	gen, ok = decimal(n)
	if !ok || gen == 0 {
		return "", 0, false
	}
	return base, gen, true
}

// Record is one line of a daemon's relay journal (<bus>/journal): JSON,
// one object per line, append-only. An attempt record is durable before
// its request is sent; a done record follows once the service confirmed
// it. The relay rebuilds all it knows of the service from these records.
type Record struct {
	Op string `json:"op"`
	// ID is the message id; Part one of its parts ("0", "1", ... for
	// text, "edit:0", ... for edits of a replaced message's parts, or
	// PartRoot, PartThread, PartArchive).
	ID      string `json:"id"`
	Part    string `json:"part"`
	Session string `json:"session"`
	// Thread is the service id of the thread the part goes to; "" for
	// the channel (a root).
	Thread string `json:"thread,omitempty"`
	// Text (attempt) is the part as rendered: redacted, split, before
	// the adapter's escaping. A lookup matches on it, a re-post sends it.
	Text string `json:"text,omitempty"`
	// Parts (attempt of a text part) is how many text parts the message
	// was rendered into.
	Parts int `json:"parts,omitempty"`
	// Remote (done) is the service's id of what was made: a message id or
	// ts, or the thread id for PartThread; for an edit, the id edited.
	Remote string `json:"remote,omitempty"`
	At     int64  `json:"at"` // unix ms
	// After (attempt) is the service id of the last part done in the same
	// place (thread, or channel for a root) when the attempt was made, or
	// a higher one its poster knew to exist (relay.Floors): the part, if
	// accepted, lies after it. Kept in the record so a lookup
	// stays bounded after a compaction dropped the parts before it.
	After string `json:"after,omitempty"`
	// Sum (attempt) is MessageSum of the message the part belongs to: an
	// id used again with other content is told apart before anything of
	// it is posted.
	Sum string `json:"sum,omitempty"`
	// A file part's attempt records what its lookup and a re-post need
	// (DESIGN 5, "Files"): the files/ entry it uploads ("" for the long
	// text's file, rendered from the message), the name and content type
	// the service shows, and the size and hex SHA-256 of the content as
	// uploaded (after redaction). A re-post whose content no longer has
	// FileSum is never made under the same key.
	File        string `json:"file,omitempty"`
	Name        string `json:"name,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Size        int64  `json:"size,omitempty"`
	FileSum     string `json:"fileSum,omitempty"`
}

// MessageSum is the hex SHA-256 of m's canonical encoding.
func MessageSum(m Message) string {
	data, err := encode(m.WithDefaults())
	if err != nil {
		return "" // a Message always encodes; "" matches nothing
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Key is the record's part key, "<id>/<part>", unique per daemon.
func (r Record) Key() string { return r.ID + "/" + r.Part }
