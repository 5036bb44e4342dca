package spec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// AgentDirEnv and LegacyAgentDirEnv name the agent directory when no flag
// does; the second is the reference system's variable.
const (
	AgentDirEnv       = "RECONCILER_AGENT_DIR"
	LegacyAgentDirEnv = "GJC_CODING_AGENT_DIR"
)

// ResolveAgentDir picks the agent directory: the flag, else $RECONCILER_AGENT_DIR,
// else $GJC_CODING_AGENT_DIR, else ~/.gjc/agent. The result is absolute, so a
// daemon started from another working directory finds the same place.
func ResolveAgentDir(flag string, lookupEnv func(string) (string, bool)) (string, error) {
	dir := flag
	for _, name := range []string{AgentDirEnv, LegacyAgentDirEnv} {
		if dir != "" {
			break
		}
		dir, _ = lookupEnv(name)
	}
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("no agent directory: pass --agent-dir or set " + AgentDirEnv)
		}
		dir = filepath.Join(home, ".gjc", "agent")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	// An agent dir given as a symlink (to a private dir elsewhere) is
	// resolved once, here: everything after works on, and checks, the real
	// dir, which must be private as any other, and every daemon's command
	// line names that one path.
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return "", fmt.Errorf("agent dir %s is a symlink that cannot be followed: %w", abs, err)
		}
		return real, nil
	}
	return abs, nil
}

// DefaultSource is the spec file read when --spec is not given.
func DefaultSource(agentDir string) string { return filepath.Join(agentDir, "daemons.yaml") }
