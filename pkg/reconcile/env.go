package reconcile

import (
	"os"
	"slices"
	"strings"
)

// childEnv is the reconciler's environment minus NOTIFY_SOCKET (a daemon must
// not talk to systemd as if it were the service) and minus every variable a
// spec names in fromEnv, so no token sits in a daemon's /proc/<pid>/environ:
// the daemon gets its tokens on stdin.
func childEnv(secretVars []string) []string {
	drop := append([]string{"NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"}, secretVars...)
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, name) {
			out = append(out, kv)
		}
	}
	return out
}
