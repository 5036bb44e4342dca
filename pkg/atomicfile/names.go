package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// Names of the transient files made next to a target
// "<dir>/<base>": "<dir>/.<base><infix><16 lowercase hex>". The leading dot
// hides them from readers that skip dotfiles (the relay's outbox, spec
// directories); the infix says what they are, so a collector can find what a
// crash left behind with ParseLeftover.
const (
	// TempInfix marks a file being written by Write, or by
	// pkg/platform's CreateExclusive. One that survives its writer holds no promise: it
	// was never published.
	TempInfix = ".tmp-"
	// QuarantineInfix marks a file that pkg/platform's ExactUnlink moved
	// aside. One that
	// survives may be a live successor's file that could not be put back
	// (see QuarantinedError): inspect before deleting.
	QuarantineInfix = ".quarantine-"

	randomSuffixLen = 16
)

// LeftoverKind says which kind of transient file a name is.
type LeftoverKind int

const (
	LeftoverTemp LeftoverKind = iota + 1
	LeftoverQuarantine
)

func (k LeftoverKind) String() string {
	switch k {
	case LeftoverTemp:
		return "temp"
	case LeftoverQuarantine:
		return "quarantine"
	}
	return "unknown"
}

// ParseLeftover reports whether name, a base name without directory, is a
// temp or quarantine file named as above, and for which base name.
func ParseLeftover(name string) (target string, kind LeftoverKind, ok bool) {
	if len(name) < 1+randomSuffixLen || name[0] != '.' || strings.ContainsRune(name, '/') {
		return "", 0, false
	}
	head, suffix := name[1:len(name)-randomSuffixLen], name[len(name)-randomSuffixLen:]
	if !isLowerHex(suffix) {
		return "", 0, false
	}
	if t, ok := strings.CutSuffix(head, TempInfix); ok && t != "" {
		return t, LeftoverTemp, true
	}
	if t, ok := strings.CutSuffix(head, QuarantineInfix); ok && t != "" {
		return t, LeftoverQuarantine, true
	}
	return "", 0, false
}

// TransientName returns a fresh name in path's directory for a file of the
// given kind; crypto/rand keeps concurrent writers, even in other processes,
// from choosing the same one.
func TransientName(path, infix string) string {
	var b [randomSuffixLen / 2]byte
	_, _ = rand.Read(b[:]) // never fails; see crypto/rand.Read
	dir, base := filepath.Split(path)
	return dir + "." + base + infix + hex.EncodeToString(b[:])
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}
