// Package demo sets up a world in which the whole reconciler runs with no
// real tokens: the local fake Discord, Slack and Telegram servers on 127.0.0.1, a
// temporary agent dir, and a spec of one bot on each pointing at them.
package demo

import (
	"errors"
	"os"
	"path/filepath"
)

// Env is a running demo world.
type Env struct {
	*Fakes
	AgentDir string
	SpecPath string
}

// Setup starts the fakes, writes the agent dir and spec, and sets the token
// variables in this process's environment.
func Setup() (*Env, error) {
	f, err := StartFakes()
	if err != nil {
		return nil, err
	}
	e := &Env{Fakes: f}
	if e.AgentDir, err = os.MkdirTemp("", "reconciler-demo-"); err != nil {
		e.Close()
		return nil, err
	}
	e.SpecPath = filepath.Join(e.AgentDir, "daemons.yaml")
	for _, t := range Tokens() {
		if err := os.Setenv(t.Env, t.Value); err != nil {
			e.Close()
			return nil, err
		}
	}
	if err := os.WriteFile(e.SpecPath, []byte(specHeader+f.Spec(FromEnv)), 0o600); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// specHeader says what the demo's spec is for.
const specHeader = `# The demo's spec: edit it while the demo runs (raise a generation, set
# state: Stopped) and watch the loop converge. verbose: every message an
# agent sends is posted, info included. authorizedUserIds: whose replies
# in a session's thread land in the daemon's inbox.
`

// Close stops the fakes and removes the agent dir. Stop the daemons first.
func (e *Env) Close() error {
	e.Fakes.Close()
	var err error
	if e.AgentDir != "" {
		err = os.RemoveAll(e.AgentDir)
	}
	return errors.Join(err)
}
