package fakeserver

import (
	"crypto/rand"
	"encoding/hex"
	"hash/fnv"
)

// Sequence hands out strictly increasing numbers from clock readings: a
// service's IDs carry their creation time and order the history, so two
// made in one tick must still differ. Guarded by the fake's lock.
type Sequence struct{ last int64 }

// Next returns now, or one more than the last number when now is not past it.
func (q *Sequence) Next(now int64) int64 {
	q.last = max(now, q.last+1)
	return q.last
}

// Hash is a stable hash of a token or a name, for the IDs a fake derives
// from it so that a test can predict them.
func Hash(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}

// RandomHex returns n random bytes in hex, for session IDs and tickets.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
