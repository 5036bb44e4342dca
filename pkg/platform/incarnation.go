package platform

import (
	"strconv"
	"strings"
)

// Incarnation prefixes. An incarnation is an immutable start-time proof of a
// process: two processes that ever held the same PID have different ones.
const (
	linuxIncarnationPrefix  = "linux:"  // linux:<start ticks since boot>
	darwinIncarnationPrefix = "darwin:" // darwin:<start sec>:<start usec>
)

// ValidIncarnation reports whether s is an incarnation in one of the formats
// Incarnation produces: "linux:<ticks>" or "darwin:<sec>:<usec>", each number
// canonical unsigned decimal (no sign, no leading zeros, fits in 64 bits;
// darwin seconds above 0, usec below 1e6). Anything else, the legacy "unavailable" included, proves
// nothing. Because the form is canonical, equal processes give equal strings
// and callers may compare incarnations with ==.
func ValidIncarnation(s string) bool {
	if rest, ok := strings.CutPrefix(s, linuxIncarnationPrefix); ok {
		_, ok := parseCanonicalUint(rest)
		return ok
	}
	if rest, ok := strings.CutPrefix(s, darwinIncarnationPrefix); ok {
		sec, usec, found := strings.Cut(rest, ":")
		if !found {
			return false
		}
		// Seconds of 0 (1970) are no start time; the reference refuses them too.
		sec64, okSec := parseCanonicalUint(sec)
		u, okUsec := parseCanonicalUint(usec)
		return okSec && sec64 > 0 && okUsec && u < 1e6
	}
	return false
}

// parseCanonicalUint accepts exactly the strings strconv.FormatUint produces.
func parseCanonicalUint(s string) (uint64, bool) {
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
