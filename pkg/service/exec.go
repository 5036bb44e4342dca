package service

import (
	"context"
	"os/exec"
)

// ExecRunner runs commands as they are, with this process's environment.
type ExecRunner struct{}

// Run runs argv and returns what it printed on either stream.
func (ExecRunner) Run(ctx context.Context, argv []string) (string, error) {
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	return string(out), err
}

var lookPath = exec.LookPath
