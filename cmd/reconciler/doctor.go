package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/chat/registry"
	"gjc.dev/reconciler/pkg/doctor"
	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/service"
	"gjc.dev/reconciler/pkg/spec"
)

// doctorReport is `doctor -o json`: the machine's checks, then each bot's.
type doctorReport struct {
	Machine []doctor.Line `json:"machine"`
	Bots    []doctorBot   `json:"bots"`
	Failed  int           `json:"failed"`
}

type doctorBot struct {
	Name     string        `json:"name"`
	Provider spec.Provider `json:"provider"`
	Checks   []doctor.Line `json:"checks"`
}

func newDoctorCommand(g *globals) *cobra.Command {
	var output, lingerDir string
	cmd := &cobra.Command{
		Use:   "doctor [NAME...]",
		Short: "Check each bot against its service, and this machine, without posting anything",
		Long: `Check what the bots need before they need it, and print a line per check:
ok and what was found, or FAIL and what to do.

This machine: the agent dir and the records under it are private to this
user, the loop's socket, and on Linux whether the user's services outlive
their logins (lingering).

Each bot of the spec (or each NAME): its token; Discord: the application and
its Message Content intent (when authorizedUserIds is set), the parent
channel, and each permission the relay uses there, computed from the
server's roles and the channel's overwrites; Slack: the workspace, each
scope the relay uses, the channel (and that the bot is in it) and Socket
Mode; and the clock against the service's.

Nothing is posted, edited or reacted to. Exit 0 when every check passes, 1
when one fails, 2 when the spec is invalid or a NAME is not in it.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			unit := installedUnit(cmd, g)
			// Lingering is systemd's: where it is not the init, there is
			// nothing to turn on. The hidden --linger-dir stands in for a
			// systemd machine in tests.
			underSystemd := runtime.GOOS == "linux" && (somethingAt("/run/systemd/system") || cmd.Flags().Changed("linger-dir"))
			rep, err := runDoctor(ctx, g, args, machine{lingerDir: lingerDir, underSystemd: underSystemd, unit: unit})
			if err != nil {
				return err
			}
			if ctx.Err() != nil {
				// The checks cut short fail for that alone: no report.
				return &exitError{code: exitNotDone, err: errors.New("doctor: interrupted; nothing was checked to the end")}
			}
			out := cmd.OutOrStdout()
			if output == "json" {
				if err := printJSON(out, rep); err != nil {
					return err
				}
			} else {
				doctor.Print(out, "this machine:", rep.Machine)
				for _, b := range rep.Bots {
					doctor.Print(out, fmt.Sprintf("%s (%s):", b.Name, b.Provider), b.Checks)
				}
			}
			if rep.Failed > 0 {
				return &exitError{code: exitNotDone, err: fmt.Errorf("doctor: %s", plural(rep.Failed, "check")+" failed")}
			}
			return nil
		},
	}
	addOutputFlag(cmd, &output, textFormats)
	// Where systemd keeps a file per lingering user: tests point it at a
	// directory of their own.
	cmd.Flags().StringVar(&lingerDir, "linger-dir", service.LingerDir, "")
	_ = cmd.Flags().MarkHidden("linger-dir")
	return cmd
}

// runDoctor runs every check; an invalid spec or an unknown NAME is a usage
// error (exit 2), since there is nothing sound to check then.
func runDoctor(ctx context.Context, g *globals, names []string, m machine) (*doctorReport, error) {
	agentDir, specPath, err := g.paths()
	if err != nil {
		return nil, err
	}
	res := spec.LoadOnce(specPath)
	if !res.Valid() {
		var lines []string
		for i, e := range res.Errors {
			if i == maxSpecErrors {
				lines = append(lines, fmt.Sprintf("... and %d more (reconciler validate lists them all)", len(res.Errors)-i))
				break
			}
			lines = append(lines, e.String())
		}
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("the spec is invalid, so no bot was checked:\n%s", strings.Join(lines, "\n"))}
	}
	daemons := res.Daemons
	if len(names) > 0 {
		daemons = nil
		for _, n := range names {
			d := res.Lookup(n)
			if d == nil {
				return nil, &exitError{code: exitInvalid, err: fmt.Errorf("unknown daemon %q: not in the spec %s", n, specPath)}
			}
			daemons = append(daemons, d)
		}
	}
	rep := &doctorReport{Machine: m.checks(ctx, agentDir, res.Names()), Bots: []doctorBot{}}
	for _, d := range daemons {
		p, err := registry.For(d.Config.Provider)
		if err != nil {
			return nil, err // the spec validated: every provider it names is registered
		}
		rep.Bots = append(rep.Bots, doctorBot{Name: d.Name(), Provider: d.Config.Provider, Checks: p.Doctor(ctx, &d.Config)})
	}
	rep.Failed = doctor.Failed(rep.Machine)
	for _, b := range rep.Bots {
		rep.Failed += doctor.Failed(b.Checks)
	}
	return rep, nil
}

// machine is what doctor knows of this machine's service manager.
type machine struct {
	lingerDir    string
	underSystemd bool
	// unit is the service file `service install` wrote for this agent
	// dir, "" when there is none.
	unit string
}

// checks are the checks of this machine: the agent dir, the loop's
// socket and, under systemd, lingering.
func (m machine) checks(ctx context.Context, agentDir string, names []string) []doctor.Line {
	lines := []doctor.Line{doctor.AgentDir(agentDir, names)}
	c := localapi.NewClient(agentDir)
	err := c.Answering(ctx)
	// A path too long for a socket is no loop here and never can be one.
	none := errors.Is(err, localapi.ErrNoLoop) && !errors.Is(err, localapi.ErrSocketPathTooLong)
	lines = append(lines, doctor.Loop(c.Path(), err, none, m.unit))
	if m.underSystemd {
		name := userName()
		on, err := service.Lingering(m.lingerDir, name)
		lines = append(lines, doctor.Lingering(name, on, err))
	}
	return lines
}

// installedUnit is the service file `service install` wrote, when it is
// there as install would write it now, for this binary and agent dir (a
// user has one unit: one for another agent dir says nothing of this
// one's loop); "" otherwise.
func installedUnit(cmd *cobra.Command, g *globals) string {
	mgr, _, err := serviceManager(cmd, g, false)
	if err != nil {
		return ""
	}
	data, err := atomicfile.ReadCapped(mgr.File, maxUnitFile)
	if err != nil || string(data) != mgr.Content {
		return ""
	}
	return mgr.File
}

// maxUnitFile caps the read of a unit file: ours is 2 KiB.
const maxUnitFile = 64 << 10
