package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/registry"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/logging"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/spec"
)

func newDaemonCommand(g *globals) *cobra.Command {
	var name, ownerID string
	var generation int64
	var heartbeat time.Duration
	cmd := &cobra.Command{
		Use:    daemonproto.Command + " --name N --owner-id O --generation G < config.json",
		Short:  "Run one chat daemon (started by the reconciler; config on stdin)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkNameArg(name); err != nil {
				return err
			}
			cfg, secrets, err := daemonproto.ReadConfig(os.Stdin, name, spec.Generation(generation))
			if errors.Is(err, spec.ErrNoConfig) {
				// A warm replacement the reconciler let go: it was never
				// anything, so it leaves nothing (no file, no line, exit 0).
				return nil
			}
			if err != nil {
				return &exitError{code: daemonproto.ExitUsage, err: err}
			}
			agentDir, err := g.resolveAgentDir()
			if err != nil {
				return &exitError{code: daemonproto.ExitUsage, err: err}
			}
			// A daemon outlives the terminal and the reconciler that started it.
			_, _ = syscall.Setsid()
			signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
			paths := ownership.PathsFor(agentDir, name)
			if err := fsstore.EnsureDir(paths); err != nil {
				return &exitError{code: daemonproto.ExitFailed, err: err}
			}
			logFile := chat.OpenLogFile(filepath.Join(paths.Dir, "daemon.log"))
			defer logFile.Close()
			log, err := logging.New(logFile, logging.FormatJSON, g.verbosity)
			if err != nil {
				return &exitError{code: daemonproto.ExitUsage, err: err}
			}
			log = log.WithValues("daemon", name)
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			provider, err := registry.For(cfg.Provider)
			if err != nil {
				return &exitError{code: daemonproto.ExitUsage, err: err}
			}
			port := chat.NewInboundPortIn(paths.Dir)
			if secrets.EtcdPassword != "" {
				g.fleet.password = secrets.EtcdPassword
			}
			owners, err := g.fleet.openOwners(agentDir, log)
			if err != nil {
				return &exitError{code: daemonproto.ExitUsage, err: err}
			}
			defer owners.Close()
			code, err := chat.RunDaemon(ctx, chat.DaemonOptions{
				AgentDir: agentDir, Owners: owners, OwnerID: ownerID, Config: cfg, Log: log, Heartbeat: heartbeat,
				NewRelay: chat.NewRelay(provider, cfg, agentDir, log, chat.RelayOptions{Inbound: port}),
			}, provider.Transport(cfg, log, port))
			if err != nil {
				log.Error(err, "daemon exiting", "code", code)
			}
			if code == daemonproto.ExitStopped {
				return nil
			}
			return &exitError{code: code, err: err}
		},
	}
	f := cmd.Flags()
	// The flags daemonproto.Args writes; --agent-dir is the global flag.
	f.StringVar(&name, daemonproto.FlagName, "", "daemon name (metadata.name)")
	f.StringVar(&ownerID, daemonproto.FlagOwnerID, "", "owner id to publish in state.json")
	f.Int64Var(&generation, daemonproto.FlagGeneration, 0, "generation to publish")
	f.DurationVar(&heartbeat, daemonproto.FlagHeartbeat, chat.DefaultHeartbeat, "how often state.json is renewed")
	_ = f.MarkHidden(daemonproto.FlagHeartbeat)
	for _, req := range []string{daemonproto.FlagName, daemonproto.FlagOwnerID, daemonproto.FlagGeneration} {
		_ = cmd.MarkFlagRequired(req)
	}
	return cmd
}
