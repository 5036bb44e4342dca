package main

import (
	"io"
	"os"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/logging"
	"gjc.dev/reconciler/pkg/spec"
)

// globals are the flags every subcommand accepts, before or after its name.
type globals struct {
	agentDir  string
	specPath  string
	logFormat string
	verbosity int
	log       logr.Logger
	fleet     fleetFlags
}

// resolveAgentDir applies the precedence of DESIGN section 3.
func (g *globals) resolveAgentDir() (string, error) {
	return spec.ResolveAgentDir(g.agentDir, os.LookupEnv)
}

// resolveSpec is --spec, else the agent dir's daemons.yaml.
func (g *globals) resolveSpec() (string, error) {
	if g.specPath != "" {
		return g.specPath, nil
	}
	dir, err := g.resolveAgentDir()
	if err != nil {
		return "", err
	}
	return spec.DefaultSource(dir), nil
}

// paths resolves the agent dir and the spec source; failing is a usage error.
func (g *globals) paths() (agentDir, specPath string, err error) {
	if agentDir, err = g.resolveAgentDir(); err == nil {
		specPath, err = g.resolveSpec()
	}
	if err != nil {
		return "", "", &exitError{code: exitInvalid, err: err}
	}
	return agentDir, specPath, nil
}

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{}
	lf := &loopFlags{}
	root := &cobra.Command{
		Use:   "reconciler",
		Short: "Keep chat bot daemons running exactly as daemons.yaml says",
		Long: `reconciler keeps chat bot daemons (Discord, Slack) running as the ChatDaemon
objects in daemons.yaml say: at the right generation, never two owners of one
bot, never a signal to a process it cannot prove is its own.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLoop(cmd, g, lf)
		},
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			log, err := logging.New(stderr, g.logFormat, g.verbosity)
			if err != nil {
				return &exitError{code: exitInvalid, err: err}
			}
			g.log = log
			if err := g.fleet.check(); err != nil {
				return &exitError{code: exitInvalid, err: err}
			}
			return nil
		},
	}
	// `completion bash|zsh|fish|powershell` is listed: shell completion is
	// what kubectl and systemctl users look for first.
	root.Version = versionString()
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: exitInvalid, err: err}
	})
	f := root.PersistentFlags()
	// The daemon reads its agent dir from this flag (daemonproto.Args).
	f.StringVar(&g.agentDir, daemonproto.FlagAgentDir, "", "agent directory (default $"+spec.AgentDirEnv+", else $"+spec.LegacyAgentDirEnv+", else ~/.gjc/agent)")
	f.StringVar(&g.specPath, "spec", "", "spec file or directory of *.yaml files (default <agent-dir>/daemons.yaml)")
	f.StringVar(&g.logFormat, "log-format", logging.FormatAuto, "log format: json or console (default console on a terminal, json otherwise)")
	f.IntVarP(&g.verbosity, "v", "v", 0, "log verbosity (logr V-level)")
	addFleetFlags(f, &g.fleet)

	addLoopFlags(root, lf)
	root.AddCommand(newValidateCommand(g), newVersionCommand(), newDaemonCommand(g), newStatusCommand(g), newStopCommand(g), newStartCommand(g), newRestartCommand(g), newDemoCommand(g), newGCCommand(g))
	root.AddCommand(newEventsCommand(g), newDescribeCommand(g), newLogsCommand(g), newInboxCommand(g))
	root.AddCommand(newSendCommand(g), newAskCommand(g))
	root.AddCommand(newServiceCommand(g), newDoctorCommand(g), newFakesCommand(g))
	addExamples(root)
	return root
}
