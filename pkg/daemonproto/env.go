package daemonproto

import (
	"slices"
	"strings"
)

// serviceVars are what systemd hands the reconciler's own service: a
// daemon that inherited NOTIFY_SOCKET would talk to systemd as if it were
// the service, and the watchdog and socket-activation variables name the
// reconciler's pid, not the daemon's.
var serviceVars = []string{"NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"}

// EtcdPasswordEnv holds the etcd password when no file does: never a
// flag, so it never shows in argv, and never in a daemon's environment.
const EtcdPasswordEnv = "RECONCILER_ETCD_PASSWORD"

// Env returns a daemon's environment: parent (the reconciler's, as
// os.Environ gives it) minus the service's variables, minus
// EtcdPasswordEnv and minus secretVars, every variable a spec names in
// fromEnv, so that no token or password sits in a daemon's
// /proc/<pid>/environ. The daemon gets them on stdin (ConfigStdin).
func Env(parent, secretVars []string) []string {
	var out []string
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(serviceVars, name) && name != EtcdPasswordEnv && !slices.Contains(secretVars, name) {
			out = append(out, kv)
		}
	}
	return out
}
