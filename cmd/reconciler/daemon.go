package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/logging"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

func newDaemonCommand(g *globals) *cobra.Command {
	var name, ownerID string
	var generation int64
	var heartbeat time.Duration
	cmd := &cobra.Command{
		Use:    "daemon --name N --owner-id O --generation G < config.json",
		Short:  "Run one chat daemon (started by the reconciler; config on stdin)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkNameArg(name); err != nil {
				return err
			}
			if term.IsTerminal(int(os.Stdin.Fd())) {
				return &exitError{code: exitInvalid, err: errors.New("the config comes as JSON on stdin from the reconciler; this command is not meant to be run by hand")}
			}
			cfg, err := spec.DecodeWire(os.Stdin)
			if err != nil {
				return &exitError{code: exitInvalid, err: err}
			}
			if cfg.Name != name || cfg.Generation != generation {
				return &exitError{code: exitInvalid, err: fmt.Errorf("config is for %s at generation %d, flags say %s at %d", cfg.Name, cfg.Generation, name, generation)}
			}
			agentDir, err := g.resolveAgentDir()
			if err != nil {
				return &exitError{code: exitInvalid, err: err}
			}
			// A daemon outlives the terminal and the reconciler that started it.
			_, _ = syscall.Setsid()
			signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
			paths := ownership.PathsFor(agentDir, name)
			if err := ownership.EnsureDir(paths); err != nil {
				return &exitError{code: chat.ExitFailed, err: err}
			}
			logFile := chat.OpenLogFile(filepath.Join(paths.Dir, "daemon.log"))
			defer logFile.Close()
			log, err := logging.New(logFile, logging.FormatJSON, g.verbosity)
			if err != nil {
				return &exitError{code: exitInvalid, err: err}
			}
			log = log.WithValues("daemon", name)
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			code, err := chat.RunDaemon(ctx, chat.DaemonOptions{
				AgentDir: agentDir, OwnerID: ownerID, Config: cfg, Log: log, Heartbeat: heartbeat,
			}, chat.NewTransport(cfg, log))
			if err != nil {
				log.Error(err, "daemon exiting", "code", code)
			}
			if code == chat.ExitStopped {
				return nil
			}
			return &exitError{code: code, err: err}
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "daemon name (metadata.name)")
	f.StringVar(&ownerID, "owner-id", "", "owner id to publish in state.json")
	f.Int64Var(&generation, "generation", 0, "generation to publish")
	f.DurationVar(&heartbeat, "heartbeat-interval", chat.DefaultHeartbeat, "how often state.json is renewed")
	_ = f.MarkHidden("heartbeat-interval")
	for _, req := range []string{"name", "owner-id", "generation"} {
		_ = cmd.MarkFlagRequired(req)
	}
	return cmd
}
