package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/service"
	"gjc.dev/reconciler/pkg/spec"
)

func newServiceCommand(g *globals) *cobra.Command {
	var dryRun, stopBots bool
	cmd := &cobra.Command{
		Use:   "service install|uninstall|status",
		Short: "Run the loop as a systemd user service (a LaunchAgent on macOS): install, uninstall, status",
		Args:  cobra.NoArgs,
	}
	install := &cobra.Command{
		Use:   "install",
		Short: "Write the unit for this binary and the agent dir, check it, enable and start it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, h, err := serviceManager(cmd, g, true)
			if err != nil {
				return err
			}
			if err := service.Install(cmd.Context(), h, m, dryRun); err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			if !dryRun {
				fmt.Fprintln(cmd.OutOrStdout(), "installed: reconciler service status shows it, reconciler status the bots")
			}
			return nil
		},
	}
	install.Flags().BoolVar(&dryRun, "dry-run", false, "print the file and the commands, change nothing")
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop and disable the loop's service and remove its unit; the bots keep running unless --stop-bots",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, h, err := serviceManager(cmd, g, false)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch {
			case stopBots && dryRun:
				fmt.Fprintln(out, "would stop every bot first, as reconciler stop --all does")
			case stopBots:
				// The stop command itself, so what is printed is stop's.
				stop, _, err := cmd.Root().Find([]string{"stop"})
				if err != nil {
					return err
				}
				if err := operate(stop, g, &operateFlags{lockTimeout: localapi.DefaultLockTimeout}, reconcile.Selection{All: true}, stopAll); err != nil {
					return fmt.Errorf("not every bot stopped, so the service stays installed: %w", err)
				}
			}
			if err := service.Uninstall(cmd.Context(), h, m, dryRun); err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			if !stopBots {
				// The unit stops only the loop (KillMode=process).
				fmt.Fprintln(out, "the bots keep running: reconciler stop --all stops them (and holds them stopped until start)")
			}
			return nil
		},
	}
	uninstall.Flags().BoolVar(&dryRun, "dry-run", false, "print the commands, change nothing")
	uninstall.Flags().BoolVar(&stopBots, "stop-bots", false, "stop every bot first, as reconciler stop --all does")
	status := &cobra.Command{
		Use:   "status",
		Short: "Whether the loop's service is installed, enabled and running; exit 1 if not",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, h, err := serviceManager(cmd, g, false)
			if err != nil {
				return err
			}
			ok, err := service.Status(cmd.Context(), h, m)
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			if !ok {
				return &exitError{code: exitNotDone}
			}
			return nil
		},
	}
	cmd.AddCommand(install, uninstall, status)
	return cmd
}

// stopAll is reconciler stop --all with its default timeouts.
func stopAll(ctx context.Context, b localapi.Backend, sel reconcile.Selection, lock metav1.Duration) (*localapi.OperateResponse, error) {
	return b.Stop(ctx, localapi.StopRequest{Selection: sel, LockTimeout: lock,
		GracefulTimeout: metav1.Duration{Duration: spec.DefaultGracefulTimeout}, KillTimeout: metav1.Duration{Duration: spec.DefaultKillTimeout}})
}

// serviceManager is this system's service manager for this binary's loop
// over the agent dir (and --spec) as given; install wants the agent dir to
// exist, so a typo is not found at the loop's first start.
func serviceManager(cmd *cobra.Command, g *globals, install bool) (service.Manager, service.Host, error) {
	invalid := func(err error) (service.Manager, service.Host, error) {
		return service.Manager{}, service.Host{}, &exitError{code: exitInvalid, err: err}
	}
	if g.fleet.backend != ownershipFiles {
		return invalid(errors.New("service install writes no --ownership etcd flags yet: write the unit by hand, from config/reconciler.service"))
	}
	bin, err := os.Executable()
	if err == nil {
		bin, err = filepath.EvalSymlinks(bin)
	}
	if err != nil {
		return invalid(fmt.Errorf("finding this binary: %w", err))
	}
	if install && service.GoRunBuild(bin) {
		return invalid(fmt.Errorf("this binary (%s) is a go run build, gone when it exits: install it first (docs/install.md)", bin))
	}
	agentDir, err := serviceAgentDir(g, install)
	if err != nil {
		return invalid(err)
	}
	if g.specPath != "" && !filepath.IsAbs(g.specPath) {
		return invalid(fmt.Errorf("--spec %q is relative: a service manager runs from no directory of yours, give an absolute path", g.specPath))
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return invalid(err)
	}
	m, err := service.Native(service.Loop{Binary: bin, AgentDir: agentDir, Spec: g.specPath}, home)
	if err != nil {
		return invalid(err)
	}
	return m, service.NativeHost(userName(), cmd.OutOrStdout()), nil
}

// userName is this process's user's name, for advice that names it ($USER
// when the user database cannot say).
func userName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

// serviceAgentDir is the agent dir as the loop would resolve it, refused
// when given relative (the unit would name wherever this shell stood).
func serviceAgentDir(g *globals, mustExist bool) (string, error) {
	given := g.agentDir
	for _, name := range []string{spec.AgentDirEnv, spec.LegacyAgentDirEnv} {
		if given == "" {
			given = os.Getenv(name)
		}
	}
	if given != "" && !filepath.IsAbs(given) {
		return "", fmt.Errorf("agent dir %q is relative: a service manager runs from no directory of yours, give an absolute path", given)
	}
	dir, err := g.resolveAgentDir()
	if err != nil {
		return "", err
	}
	if !mustExist {
		return dir, nil
	}
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("agent dir %s does not exist: create it and write its daemons.yaml first (docs/quickstart.md), or pass --agent-dir", dir)
	case err != nil:
		return "", fmt.Errorf("agent dir: %w", err)
	case !fi.IsDir():
		return "", fmt.Errorf("agent dir %s is not a directory", dir)
	}
	return dir, nil
}
