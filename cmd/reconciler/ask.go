package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/bus"
)

// Bounds of --timeout: the bus's longest ask, and the shortest a person
// could answer in.
const (
	minAskTimeout = time.Second
	maxAskTimeout = bus.MaxAskTimeout
)

// expiryGrace is how long --wait waits past expiresAt for the daemon's
// own verdict (a click just before the expiry, or the expiry itself) to
// land before it gives up on a daemon that is not there to give one.
const expiryGrace = 5 * time.Second

type askFlags struct {
	session string
	choices []string
	timeout time.Duration
	wait    bool
	output  string
	// grace and resync are hidden: tests shorten the one and lengthen
	// the other, so that only the watch can deliver.
	grace, resync time.Duration
}

func newAskCommand(g *globals) *cobra.Command {
	f := &askFlags{}
	cmd := &cobra.Command{
		Use:   "ask NAME --session S [--choice LABEL]... [--timeout D] [--wait] TEXT",
		Short: "Ask the people in a session's thread, with one button per choice; --wait prints the choice",
		Long: `Queue a question for daemon NAME to post in the session's thread with one
button per --choice (default: Approve, Deny), as send queues a message: one
outbox file (event ask), through the running loop when one answers, else
from this process. The first click of an authorized user decides it,
exactly once; at --timeout (default 1h, at most 24h) with no decision, the
daemon decides "expired". The ask's id is printed on stdout, and nothing
else. TEXT is the question, or standard input when TEXT is "-".

With --wait, ask then waits for the decision in the daemon's inbox and
prints the choice alone on stdout (exit 0), or exits 5 when the ask expired
or no decision landed by --timeout (and a few seconds for the daemon's own
verdict). -o json prints the whole decision instead (without --wait: the
ask's id and expiresAt). The wait reads the inbox, not the service, and
needs no running loop.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAsk(cmd, g, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.session, "session", "", "the session to ask in (required): its thread, or its root and replies")
	fl.StringArrayVar(&f.choices, "choice", nil, "a button's label, once per button in order, 1 to 5 (default Approve, Deny)")
	fl.DurationVar(&f.timeout, "timeout", bus.DefaultTimeout, "how long the question may wait for a decision before it expires (at most 24h)")
	fl.BoolVar(&f.wait, "wait", false, "wait for the decision and print the choice; exit 5 if nobody decided")
	addOutputFlag(cmd, &f.output, textFormats)
	fl.DurationVar(&f.grace, "expiry-grace", expiryGrace, "with --wait, how long past expiresAt to wait for the daemon's verdict")
	fl.DurationVar(&f.resync, "resync-period", inboxResync, "with --wait, how often the inbox is read again without an event")
	_ = fl.MarkHidden("expiry-grace")
	_ = fl.MarkHidden("resync-period")
	return cmd
}

// askMessage is the outbox message of the ask f describes, made at now
// with id: the rules of the command line judged here (exit 2); the
// rules of the message itself (its choices, its text) are the bus's,
// judged where every send's are.
func askMessage(f *askFlags, id, text string, now time.Time) (bus.Message, error) {
	switch {
	case f.session == "":
		return bus.Message{}, errors.New("ask: --session is required")
	case f.timeout < minAskTimeout || f.timeout > maxAskTimeout:
		return bus.Message{}, fmt.Errorf("ask: --timeout %v: must be from %v to %v", f.timeout, minAskTimeout, maxAskTimeout)
	case f.grace < 0 || f.resync <= 0:
		return bus.Message{}, errors.New("ask: --expiry-grace must not be negative and --resync-period must be positive")
	}
	choices := f.choices
	if len(choices) == 0 {
		choices = slices.Clone(bus.DefaultChoices) // the message is the caller's to change
	}
	return bus.Message{ID: id, Session: f.session, Event: bus.EventAsk, Text: text,
		Choices: choices, ExpiresAt: bus.InboxTime(now.Add(f.timeout))}.WithDefaults(), nil
}

func runAsk(cmd *cobra.Command, g *globals, f *askFlags, args []string) error {
	name := args[0]
	if err := checkNameArg(name); err != nil {
		return err
	}
	text := args[1]
	if text == "-" {
		var err error
		if text, err = readText(cmd.InOrStdin()); err != nil {
			return err
		}
	}
	// The id is made here, as send makes one: the ask's id is the
	// message's, and the decision names it.
	m, err := askMessage(f, bus.NewID(), text, time.Now())
	if err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	agentDir, specPath, err := g.paths()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	resp, err := queueMessage(ctx, cmd, g, agentDir, specPath, name, m)
	if err != nil {
		return err
	}
	if resp.LeftOut != "" {
		// An ask is never left out by a verbosity; should that change,
		// the person hears of it rather than waiting for buttons.
		fmt.Fprintf(cmd.ErrOrStderr(), "ask: %s\n", resp.LeftOut)
	}
	out := cmd.OutOrStdout()
	if !f.wait {
		if f.output == "json" {
			return printJSON(out, struct {
				ID        string `json:"id"`
				ExpiresAt string `json:"expiresAt"`
			}{resp.ID, m.ExpiresAt})
		}
		_, err := fmt.Fprintln(out, resp.ID)
		return err
	}
	dirs, err := bus.Paths(agentDir, name)
	if err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	deadline := m.ExpiresAtTime().Add(f.grace)
	d, found, err := waitDecision(ctx, dirs, m, deadline, f.resync, warnInboxSkip(cmd.ErrOrStderr()))
	switch {
	case err != nil:
		return &exitError{code: exitNotDone, err: fmt.Errorf("ask %s: waiting for the decision: %w", m.ID, err)}
	case ctx.Err() != nil && !found:
		return &exitError{code: exitNotDone, err: fmt.Errorf("ask %s: interrupted; the question stays open in chat until %s, and its decision will land in the inbox (reconciler inbox %s --session %s)", m.ID, m.ExpiresAt, name, m.Session)}
	case !found:
		return &exitError{code: exitNoDecision, err: fmt.Errorf("ask %s: no decision landed by %s, %v after it expired: is daemon %s running? (reconciler status %s)", m.ID, m.ExpiresAt, f.grace, name, name)}
	}
	return printDecision(cmd, d, f.output == "json")
}
