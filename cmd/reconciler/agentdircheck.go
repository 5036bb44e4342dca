package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/spec"
)

// lookPaths is paths for a command that only looks (status, describe,
// events, gc): an agent dir that is not there, or holds nothing of a
// reconciler's, is a mistake (a typo in --agent-dir), never an empty table.
func (g *globals) lookPaths() (agentDir, specPath string, err error) {
	if agentDir, specPath, err = g.paths(); err != nil {
		return "", "", err
	}
	if err := checkAgentDir(agentDir, specPath, g.agentDirSource()); err != nil {
		return "", "", &exitError{code: exitInvalid, err: err}
	}
	return agentDir, specPath, nil
}

// agentDirSource names where the agent dir came from, for a message
// about it.
func (g *globals) agentDirSource() string {
	if g.agentDir != "" {
		return "--agent-dir"
	}
	for _, name := range []string{spec.AgentDirEnv, spec.LegacyAgentDirEnv} {
		if v, ok := os.LookupEnv(name); ok && v != "" {
			return "$" + name
		}
	}
	return "the default agent dir"
}

// checkAgentDir is nil for a directory a reconciler or its spec has used:
// one with sdk/ (a loop, a --once or a daemon ran on it) or with the spec
// source in it or named by --spec. It names the dir, where it came from
// (from), and what it lacks.
func checkAgentDir(agentDir, specPath, from string) error {
	where := "(" + from + ")"
	fi, err := os.Stat(agentDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("agent dir %s does not exist %s", agentDir, where)
	case err != nil:
		return fmt.Errorf("agent dir %s: %w", agentDir, err)
	case !fi.IsDir():
		return fmt.Errorf("agent dir %s is not a directory %s", agentDir, where)
	}
	if somethingAt(filepath.Join(agentDir, "sdk")) || somethingAt(specPath) {
		return nil
	}
	return fmt.Errorf("%s is not an agent dir: it has no sdk/ (no reconciler ran on it) and there is no spec at %s %s", agentDir, specPath, where)
}

// somethingAt: something is at path (an error other than absence counts: the
// command that reads it says what it is).
func somethingAt(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
