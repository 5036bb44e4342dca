package spec

import (
	"errors"
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
	return filepath.Abs(dir)
}

// DefaultSource is the spec file read when --spec is not given.
func DefaultSource(agentDir string) string { return filepath.Join(agentDir, "daemons.yaml") }
