// Command reconciler keeps chat bot daemons running exactly as daemons.yaml says.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"gjc.dev/reconciler/pkg/daemonproto"
)

// Exit codes of DESIGN section 7. A daemon exits with daemonproto's codes;
// cobra's own usage errors reach run before any command, so exitInvalid
// is also the daemon's code for a wrong command line.
const (
	exitOK          = 0
	exitNotDone     = 1
	exitInvalid     = daemonproto.ExitUsage
	exitLockTimeout = 3
	// exitNoDecision is ask --wait's when nobody decided: the ask expired,
	// or --timeout passed with no decision landed.
	exitNoDecision = 5
)

// exitError carries an exit code; its message, if any, is printed to stderr.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := newRootCommand(stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "error:", ee.err)
		}
		return ee.code
	}
	// Anything cobra rejects on its own (unknown command or flag, wrong number
	// of arguments) is a usage error.
	fmt.Fprintln(stderr, "error:", err)
	fmt.Fprintln(stderr, "Run 'reconciler --help' for usage.")
	return exitInvalid
}
