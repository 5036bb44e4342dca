package bus

import (
	"crypto/rand"
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
