// Package incarnation is the format of a process incarnation, an immutable
// start-time proof of a process: two processes that ever held the same PID
// have different ones. The platform makes them and the ownership records
// carry them; this leaf lets both agree on one format without the records
// linking the platform.
package incarnation

import (
	"strconv"
	"strings"
)

// The prefixes of the two formats.
const (
	LinuxPrefix  = "linux:"  // linux:<start ticks since boot>
	DarwinPrefix = "darwin:" // darwin:<start sec>:<start usec>
)

// Valid reports whether s is an incarnation a record may carry with
// authority: "linux:<ticks>" or "darwin:<sec>:<usec>", each number canonical
// unsigned decimal (no sign, no leading zeros, fits in 64 bits; darwin
// seconds above 0, usec below 1e6). Anything else, the legacy "unavailable"
// included, proves nothing. Because the form is canonical, equal processes
// give equal strings and callers may compare incarnations with ==.
func Valid(s string) bool {
	if rest, ok := strings.CutPrefix(s, LinuxPrefix); ok {
		_, ok := CanonicalUint(rest)
		return ok
	}
	if rest, ok := strings.CutPrefix(s, DarwinPrefix); ok {
		sec, usec, found := strings.Cut(rest, ":")
		if !found {
			return false
		}
		// Seconds of 0 (1970) are no start time; the reference refuses them too.
		sec64, okSec := CanonicalUint(sec)
		u, okUsec := CanonicalUint(usec)
		return okSec && sec64 > 0 && okUsec && u < 1e6
	}
	return false
}

// CanonicalUint parses a number of an incarnation: it accepts exactly the
// strings strconv.FormatUint produces.
func CanonicalUint(s string) (uint64, bool) {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}
