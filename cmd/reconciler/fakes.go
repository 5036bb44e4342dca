package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/demo"
	"gjc.dev/reconciler/pkg/service"
)

func newFakesCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "fakes",
		Short: "Run the local fake Discord, Slack and Telegram on 127.0.0.1 until interrupted, and print a spec for them",
		Long: `Run the local fake Discord, Slack and Telegram servers on 127.0.0.1 until Ctrl-C, each
with one bot that has every permission or scope the relay needs, and print a
spec of one bot on each and the environment its tokens come from, so the real
loop, send, inbox and doctor can be tried without any token.

With --agent-dir D, the spec is also written as D/daemons.yaml, its made-up
tokens in private files under D/fake-tokens, so that in another shell

  reconciler --agent-dir D doctor
  reconciler --agent-dir D

run on it as it is. The fakes listen on new ports each time they start, so
each run writes the spec again; a D/daemons.yaml this command did not write
is refused and left as it is. What the fakes hold is gone when they stop.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := demo.StartFakes()
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			defer f.Close()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "fakes: Discord at %s, Slack at %s, Telegram at %s\n", f.Discord.URL(), f.Slack.URL(), f.Telegram.URL())
			if g.agentDir != "" {
				specPath, err := demo.WriteAgentDir(f, g.agentDir)
				if errors.Is(err, demo.ErrNotOurs) {
					return &exitError{code: exitInvalid, err: err}
				}
				if err != nil {
					return &exitError{code: exitNotDone, err: err}
				}
				printFakesAgentDir(out, g.agentDir, specPath)
			} else {
				printFakesSpec(out, f)
			}
			sigs := []os.Signal{syscall.SIGINT, syscall.SIGTERM}
			if !signal.Ignored(syscall.SIGHUP) {
				// A closed terminal ends the fakes; under nohup they outlive it.
				sigs = append(sigs, syscall.SIGHUP)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), sigs...)
			defer stop()
			fmt.Fprintln(out, "fakes: running until Ctrl-C")
			<-ctx.Done()
			fmt.Fprintln(out, "fakes: stopped")
			return nil
		},
	}
}

func printFakesAgentDir(out io.Writer, dir, specPath string) {
	exe, err := os.Executable()
	if err != nil {
		exe = "reconciler"
	}
	fmt.Fprintf(out, "fakes: wrote %s (tokens under %s/fake-tokens)\nfakes: in another shell, try:\n", specPath, dir)
	for _, c := range [][]string{{"doctor"}, {"--once"}, {"status"}, {"send", "discord", "--session", "hello", "--event", "open", "--title", "Hello"}, {"send", "discord", "--session", "hello", "my first post"}} {
		fmt.Fprintf(out, "fakes:   %s\n", service.ShellWords(append([]string{exe, "--agent-dir", dir}, c...)))
	}
}

// printFakesSpec prints the spec and the variables it reads its tokens
// from. The tokens are made up: the fakes accept them and nothing else
// does, so they are printed as they are.
func printFakesSpec(out io.Writer, f *demo.Fakes) {
	fmt.Fprintln(out, "fakes: set these in the shell that runs the loop:")
	for _, t := range demo.Tokens() {
		fmt.Fprintf(out, "export %s=%s\n", t.Env, t.Value)
	}
	fmt.Fprintln(out, "fakes: and give it this spec (or run fakes with --agent-dir D to have it written):")
	fmt.Fprint(out, f.Spec(demo.FromEnv))
}
