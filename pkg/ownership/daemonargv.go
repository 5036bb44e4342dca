package ownership

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DaemonClaim is who a record or lock says its process is: the daemon of
// Name in AgentDir, running as OwnerID ("" for a lock, which names no
// owner). A live process whose incarnation matches is an owner only once
// its command line says the same (VerifyDaemonArgv): a record copied to
// another name's directory, or one naming any other process of the user,
// proves nothing by its PID alone.
type DaemonClaim struct {
	AgentDir string
	Name     string
	OwnerID  string
}

// ClaimOf is the claim of the daemon whose files p names; the zero claim,
// which no process can prove, for Paths that PathsFor could not have made.
func ClaimOf(p Paths, ownerID string) DaemonClaim {
	if _, err := p.levels(); err != nil {
		return DaemonClaim{}
	}
	return DaemonClaim{AgentDir: p.AgentDir(), Name: p.Name(), OwnerID: ownerID}
}

// The daemon's command line: `<exe> daemon --agent-dir D --name N
// --owner-id O --generation G [flags]`. Spawn and verification share these,
// so they cannot drift apart.
const (
	DaemonCommand   = "daemon"
	FlagAgentDir    = "agent-dir"
	FlagName        = "name"
	FlagOwnerID     = "owner-id"
	FlagGeneration  = "generation"
	FlagHeartbeat   = "heartbeat-interval"
	claimFlagPrefix = "--"
)

// DaemonArgs returns the arguments (after the executable) that start the
// daemon of c at generation, followed by extra flags.
func DaemonArgs(c DaemonClaim, generation int64, extra ...string) []string {
	args := []string{DaemonCommand,
		"--" + FlagAgentDir, c.AgentDir,
		"--" + FlagName, c.Name,
		"--" + FlagOwnerID, c.OwnerID,
		"--" + FlagGeneration, strconv.FormatInt(generation, 10)}
	return append(args, extra...)
}

// NotDaemonError says why a live process is not the daemon a claim names.
// It never quotes the process's command line, which may hold anything.
type NotDaemonError struct {
	PID  int
	Want DaemonClaim
	Why  string
}

func (e *NotDaemonError) Error() string {
	return fmt.Sprintf("pid %d is not the %s daemon of %s: %s", e.PID, e.Want.Name, e.Want.AgentDir, e.Why)
}

func (e *NotDaemonError) Reason() string { return ReasonNotThisDaemon }

// VerifyDaemonArgv checks that argv is the command line DaemonArgs makes
// for c (the owner id only when c names one), else returns a
// *NotDaemonError saying which part differs.
func VerifyDaemonArgv(pid int, argv []string, c DaemonClaim) error {
	fail := func(format string, a ...any) error {
		return &NotDaemonError{PID: pid, Want: c, Why: fmt.Sprintf(format, a...)}
	}
	if c.AgentDir == "" || c.Name == "" {
		return fail("the claim names no daemon")
	}
	if len(argv) < 2 || argv[1] != DaemonCommand {
		return fail("its command line is not that of a reconciler daemon")
	}
	flags, err := daemonFlags(argv[2:])
	if err != nil {
		return fail("%v", err)
	}
	switch {
	case !sameAgentDir(flags[FlagAgentDir], c.AgentDir):
		return fail("it runs for agent dir %q", flags[FlagAgentDir])
	case flags[FlagName] != c.Name:
		return fail("it is the daemon of %q", flags[FlagName])
	case c.OwnerID != "" && flags[FlagOwnerID] != c.OwnerID:
		return fail("it runs as owner %q, the record says %q", flags[FlagOwnerID], c.OwnerID)
	}
	return nil
}

// daemonFlags reads --flag value and --flag=value pairs; the claim's flags
// must each appear exactly once.
func daemonFlags(args []string) (map[string]string, error) {
	got := map[string]string{}
	seen := map[string]int{}
	for i := 0; i < len(args); i++ {
		a, ok := strings.CutPrefix(args[i], claimFlagPrefix)
		if !ok {
			continue
		}
		name, value, inline := strings.Cut(a, "=")
		if !inline && i+1 < len(args) {
			value = args[i+1]
		}
		switch name {
		case FlagAgentDir, FlagName, FlagOwnerID:
			if !inline {
				i++
			}
			got[name] = value
			seen[name]++
		}
	}
	for _, f := range []string{FlagAgentDir, FlagName, FlagOwnerID} {
		if seen[f] != 1 {
			return nil, fmt.Errorf("its command line has --%s %d times", f, seen[f])
		}
	}
	return got, nil
}

// sameAgentDir: the same path, or two absolute paths naming one directory.
// A relative one is relative to the daemon's working dir, not ours, so it
// is judged only by its text.
func sameAgentDir(got, want string) bool {
	if got == "" {
		return false
	}
	if filepath.Clean(got) == filepath.Clean(want) {
		return true
	}
	if !filepath.IsAbs(got) || !filepath.IsAbs(want) {
		return false
	}
	a, err := os.Stat(got)
	if err != nil {
		return false
	}
	b, err := os.Stat(want)
	return err == nil && os.SameFile(a, b)
}
