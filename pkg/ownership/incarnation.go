package ownership

import (
	"strconv"
	"strings"
)

// ValidIncarnation reports whether s is an incarnation a record may carry
// with authority: "linux:<ticks>" or "darwin:<sec>:<usec>", each number
// canonical unsigned decimal (no sign, no leading zeros, fits in 64 bits;
// darwin seconds above 0, usec below 1e6). Anything else, the legacy
// "unavailable" included, proves nothing.
//
// It is the format platform.Incarnation produces and platform.ValidIncarnation
// accepts, restated here because the record format is this package's and
// this package does not link the platform (pkg/reconcile must not); a test
// holds the two together.
func ValidIncarnation(s string) bool {
	if rest, ok := strings.CutPrefix(s, "linux:"); ok {
		_, ok := canonicalUint(rest)
		return ok
	}
	if rest, ok := strings.CutPrefix(s, "darwin:"); ok {
		sec, usec, found := strings.Cut(rest, ":")
		if !found {
			return false
		}
		// Seconds of 0 (1970) are no start time; the reference refuses them too.
		sec64, okSec := canonicalUint(sec)
		u, okUsec := canonicalUint(usec)
		return okSec && sec64 > 0 && okUsec && u < 1e6
	}
	return false
}

// canonicalUint accepts exactly the strings strconv.FormatUint produces.
func canonicalUint(s string) (uint64, bool) {
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
