package fsstore

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
)

// claimFlagPrefix starts every flag of a daemon's command line.
const claimFlagPrefix = "--"

// VerifyDaemonArgv judges argv against c. It returns nil when argv is the
// claimed daemon's, in this reconciler's form (daemonproto.Args) or in the
// reference system's (`... daemon <name>-internal --owner-id O --agent-dir
// D`, whose daemons this one must keep fencing); the owner id is checked
// only when c names one. It returns a *ownership.NotDaemonError only on positive
// evidence of another process, and an *ownership.UnprovenDaemonError when neither
// can be proved: an empty command line (a process tearing itself down, or
// a kernel thread), an agent dir that no longer exists or is relative (a
// moved dir: the daemon may well be this one), or one that names this
// owner in no form known here.
func VerifyDaemonArgv(pid int, argv []string, c ownership.DaemonClaim) error {
	other := func(why string) error { return &ownership.NotDaemonError{PID: pid, Want: c, Why: why} }
	unsure := func(why string) error { return &ownership.UnprovenDaemonError{PID: pid, Why: why} }
	if c.AgentDir == "" || c.Name == "" {
		return unsure("no daemon is named to prove it against")
	}
	if len(argv) == 0 {
		return unsure("its command line is empty (exiting, or a kernel thread)")
	}
	flags, form, ok := daemonForm(argv)
	if !ok {
		switch {
		case c.OwnerID != "" && slices.Contains(flagValues(argv, daemonproto.FlagOwnerID), c.OwnerID):
			return unsure("it names this owner, in a command line of no known daemon form")
		case c.OwnerID == "" && slices.Contains(argv[1:], daemonproto.Command):
			// A lock names no owner: any daemon-like command line may be
			// its creator's.
			return unsure("it runs a daemon, in a command line of no known form")
		}
		return other(form)
	}
	switch sameAgentDir(flags[daemonproto.FlagAgentDir], c.AgentDir) {
	case dirOther:
		return other("it runs for another agent dir")
	case dirUnknown:
		return unsure("its agent dir cannot be compared with this one (moved, removed or relative)")
	}
	switch {
	case flags[daemonproto.FlagName] != c.Name:
		return other("it is the daemon of another name")
	case c.OwnerID != "" && flags[daemonproto.FlagOwnerID] != c.OwnerID:
		return other("it runs as another owner than the record says")
	}
	return nil
}

// daemonForm finds the daemon flags in argv, in this reconciler's form
// (argv[1] is "daemon") or the reference's (some argv[i] is "daemon" and
// argv[i+1] "<kind>-internal", where the kind is the dir name). Without a
// known form, it says what argv is instead.
func daemonForm(argv []string) (flags map[string]string, why string, ok bool) {
	for i := 1; i+1 < len(argv); i++ {
		kind, isRef := strings.CutSuffix(argv[i+1], "-internal")
		if argv[i] != daemonproto.Command || !isRef {
			continue
		}
		flags, err := daemonFlags(argv[i+2:], daemonproto.FlagAgentDir, daemonproto.FlagOwnerID)
		if err != nil {
			return nil, err.Error(), false
		}
		flags[daemonproto.FlagName] = kind
		return flags, "", true
	}
	if len(argv) >= 2 && argv[1] == daemonproto.Command {
		flags, err := daemonFlags(argv[2:], daemonproto.FlagAgentDir, daemonproto.FlagName, daemonproto.FlagOwnerID)
		if err != nil {
			return nil, err.Error(), false
		}
		return flags, "", true
	}
	return nil, "its command line is not that of a daemon", false
}

// flagValues returns every value argv gives flag, in either form.
func flagValues(argv []string, flag string) []string {
	var vals []string
	for i, a := range argv {
		if v, ok := strings.CutPrefix(a, "--"+flag+"="); ok {
			vals = append(vals, v)
		} else if a == "--"+flag && i+1 < len(argv) {
			vals = append(vals, argv[i+1])
		}
	}
	return vals
}

// daemonFlags reads --flag value and --flag=value pairs; each of want
// must appear exactly once.
func daemonFlags(args []string, want ...string) (map[string]string, error) {
	got := map[string]string{}
	seen := map[string]int{}
	for i := 0; i < len(args); i++ {
		a, ok := strings.CutPrefix(args[i], claimFlagPrefix)
		if !ok {
			continue
		}
		name, value, inline := strings.Cut(a, "=")
		if !slices.Contains(want, name) {
			continue
		}
		if !inline && i+1 < len(args) {
			value = args[i+1]
			i++
		}
		got[name] = value
		seen[name]++
	}
	for _, f := range want {
		if seen[f] != 1 {
			return nil, fmt.Errorf("its command line has --%s %d times", f, seen[f])
		}
	}
	return got, nil
}

// dirRelation is what can be proved about two agent dir paths.
type dirRelation int

const (
	dirSame    dirRelation = iota
	dirOther               // both exist and are different dirs
	dirUnknown             // one cannot be looked at, or is relative
)

// sameAgentDir: the same path, or two absolute paths naming one directory,
// is the same; two that exist and differ are other. A relative path is
// relative to the daemon's working dir, not ours, and one that no longer
// exists may be this dir moved: neither proves anything.
func sameAgentDir(got, want string) dirRelation {
	if got != "" && filepath.Clean(got) == filepath.Clean(want) {
		return dirSame
	}
	if !filepath.IsAbs(got) || !filepath.IsAbs(want) {
		return dirUnknown
	}
	a, err := os.Stat(got)
	if err != nil {
		return dirUnknown
	}
	b, err := os.Stat(want)
	if err != nil {
		return dirUnknown
	}
	if os.SameFile(a, b) {
		return dirSame
	}
	return dirOther
}
