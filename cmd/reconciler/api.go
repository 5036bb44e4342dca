package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
)

// apiChoice is where an operator's command gets its answers: the loop that
// answers on the agent dir's socket, or, with none answering, this process
// acting itself, said once on stderr. A loop that answers with an error is
// that error: never a reason to act alone.
type apiChoice struct {
	agentDir string
	loop     *localapi.Client
	direct   *localapi.Direct
	stderr   io.Writer
	waits    *waitReporter // nil: a command that does not wait
	said     sync.Once
}

// newAPIChoice asks agentDir's loop; acting alone, it reports its waits to
// waits (when not nil), as --once does.
func newAPIChoice(stderr io.Writer, fleet *fleetFlags, agentDir, specPath string, log logr.Logger, waits *waitReporter) *apiChoice {
	a := &apiChoice{agentDir: agentDir, loop: localapi.NewClient(agentDir), stderr: stderr, waits: waits}
	a.direct = &localapi.Direct{AgentDir: agentDir, SpecPath: specPath, Log: log, Options: func() (reconcile.Options, error) {
		opts, err := reconcileOptions(fleet, agentDir, log, 0, 0)
		if waits != nil {
			opts.Progress = waits.Report
		}
		return opts, err
	}}
	if waits != nil {
		// The loop's own waits, streamed, are printed as this
		// process's would be.
		a.loop.Progress = waits.Report
		a.direct.LockPasses = func(ctx context.Context, timeout time.Duration) (func(), error) {
			return passLock(ctx, agentDir, timeout, waits.Report)
		}
	}
	return a
}

// ask calls the loop, or acts directly when no loop answers. While the
// loop works on it, the wait says so (what: the command, "" for a read),
// and the loop's own waits are printed as they come.
func ask[T any](a *apiChoice, what string, call func(localapi.Backend) (T, error)) (T, error) {
	var v T
	err := a.loop.Answering(context.Background())
	if err == nil {
		if a.waits != nil && what != "" {
			a.waits.Report(reconcile.Progress{Name: "loop", Wait: reconcile.WaitLoop, Detail: what})
		}
		v, err = call(a.loop)
		if a.waits != nil && what != "" {
			a.waits.Report(reconcile.Progress{Name: "loop"})
		}
	}
	if !errors.Is(err, localapi.ErrNoLoop) {
		return v, apiExit(err)
	}
	a.said.Do(func() { fmt.Fprintf(a.stderr, "%v: acting directly%s\n", err, loopRunsAnyway(a.agentDir)) })
	v, err = call(a.direct)
	return v, apiExit(err)
}

// loopRunsAnyway is what acting directly adds when a loop holds the agent
// dir's loop lock though none answers (its socket removed, or a path too
// long for one): this shell's environment, not the loop's, is used.
func loopRunsAnyway(agentDir string) string {
	h, held, err := fsstore.LoopLockHolder(agentDir)
	switch {
	case err != nil || !held:
		return ""
	case h.PID == 0:
		return ", though a reconciler loop runs on this agent dir; this shell's environment is used, not the loop's"
	}
	return fmt.Sprintf(", though a reconciler loop (pid %d) runs on this agent dir; this shell's environment is used, not the loop's", h.PID)
}

// status is `status`'s data: the loop's view, or a live look from here.
func (a *apiChoice) status(names []string) (*reconcile.Status, error) {
	return ask(a, "", func(b localapi.Backend) (*reconcile.Status, error) {
		return b.Status(context.Background(), localapi.StatusRequest{Names: names})
	})
}

// look is the status source of a read-only command run from cmd: the
// loop's view, or a live look from here.
func look(cmd *cobra.Command, g *globals, agentDir, specPath string) func([]string) (*reconcile.Status, error) {
	return newAPIChoice(cmd.ErrOrStderr(), &g.fleet, agentDir, specPath, g.log, nil).status
}

// apiExit gives an answer's error the command line's exit code.
func apiExit(err error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return &exitError{code: localapi.ExitCode(err), err: err}
}

// serveAPI serves the loop's local API until ctx is done; the returned stop
// removes the socket. It fails when another loop runs on agentDir.
func serveAPI(ctx context.Context, loop *reconcile.Loop, progress *localapi.ProgressHub, agentDir string, log logr.Logger) (stop func(), err error) {
	b := &localapi.LoopBackend{Loop: loop, AgentDir: agentDir, Log: log, Progress: progress}
	stop, err = localapi.Serve(ctx, agentDir, b, log)
	if err != nil {
		return nil, &exitError{code: exitNotDone, err: err}
	}
	return stop, nil
}
