package service

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// Loop is what a service manager runs: this binary's loop over one agent
// dir. The same description gives the systemd unit and the launchd plist,
// so the two say the same thing, and config/ holds them for placeholder
// paths.
type Loop struct {
	// Binary is the reconciler executable, an absolute path.
	Binary string
	// AgentDir is the agent dir, an absolute path; empty leaves the loop to
	// its default (~/.gjc/agent, or the environment's).
	AgentDir string
	// Spec is --spec, an absolute path; empty is the agent dir's daemons.yaml.
	Spec string
}

// Check refuses what a service manager would run wrongly: a relative path
// means nothing to it (it has no working directory of yours), and a control
// character cannot be written on one line of a unit.
func (l Loop) Check() error {
	if l.Binary == "" {
		return errors.New("no binary path")
	}
	for _, p := range []struct{ what, path string }{{"binary", l.Binary}, {"agent dir", l.AgentDir}, {"spec", l.Spec}} {
		if p.path == "" {
			continue
		}
		if !filepath.IsAbs(p.path) {
			return fmt.Errorf("%s %q is relative: a service manager runs from no directory of yours, give an absolute path", p.what, p.path)
		}
		if strings.IndexFunc(p.path, unicode.IsControl) >= 0 {
			return fmt.Errorf("%s %q has a control character: no service file can name it", p.what, p.path)
		}
	}
	return nil
}

// Args is the loop's command line: JSON logs, since a service manager's
// journal is not a terminal.
func (l Loop) Args() []string {
	args := []string{l.Binary}
	if l.AgentDir != "" {
		args = append(args, "--agent-dir", l.AgentDir)
	}
	if l.Spec != "" {
		args = append(args, "--spec", l.Spec)
	}
	return append(args, "--log-format", "json")
}

// GoRunBuild says path is a binary go run built in its temp dir
// (.../go-build.../exe/NAME), removed when go run exits: no service can
// run it.
func GoRunBuild(path string) bool {
	exe := filepath.Dir(filepath.Clean(path))
	build := filepath.Dir(filepath.Dir(exe))
	return filepath.Base(exe) == "exe" && strings.HasPrefix(filepath.Base(build), "go-build")
}
