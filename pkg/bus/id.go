package bus

import (
	"crypto/rand"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

var (
	idMu      sync.Mutex
	idEntropy = ulid.Monotonic(rand.Reader, 0)
)

// NewID returns a fresh message id: a ULID, 26 characters of Crockford
// base32 that sort by creation time (to the millisecond, and strictly
// increasing within this process), with 80 random bits against collisions
// between producers.
func NewID() string {
	idMu.Lock()
	defer idMu.Unlock()
	return ulid.MustNew(ulid.Timestamp(time.Now()), idEntropy).String()
}

// IDRule is ValidID's rule, as errors and docs state it.
const IDRule = "must match [A-Za-z0-9._-]{1,64} and not start with '.'"

// ValidID reports whether id may name an outbox message: 1..MaxIDLen
// bytes of [A-Za-z0-9._-], not starting with '.'. The one rule for every
// producer (send, bus.Write) and the relay's reader (Decode): an id
// starting with '.' would name a file <id>.json that reads as a
// producer's temp file (IsTempName), which no consumer ever looks at, so
// it would be written and then never posted, failed or counted.
func ValidID(id string) bool {
	return validToken(id, MaxIDLen, false) && !IsTempName(id+".json")
}

// IsTempName reports whether name, an entry of an outbox, is a producer's
// temp file (starting with '.'), renamed into place once whole: never a
// message, never judged.
func IsTempName(name string) bool { return strings.HasPrefix(name, ".") }
