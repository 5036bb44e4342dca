package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
	"unicode/utf16"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/linefile"
)

// inboxResync is how often a followed inbox is read again whatever the
// watch said (bus.FollowInbox). Tests raise it (the hidden
// --resync-period) so that only the watch can deliver.
const inboxResync = 5 * time.Second

func newInboxCommand(g *globals) *cobra.Command {
	var follow bool
	var session, output string
	var resync time.Duration
	cmd := &cobra.Command{
		Use:   "inbox NAME",
		Short: "Show the replies authorized users sent to a daemon's sessions, and its asks' decisions, oldest first",
		Long: `Show the messages in the daemon's inbox (sdk/bus/NAME/inbox/<session>/),
the replies its authorized users wrote in the sessions' threads and the
decisions of its asks, oldest first across sessions: time (UTC, as the
service gave it), session, user, text (a decision: "decided: CHOICE (ask
ID)", or "expired"); under a reply, one line per file attached to it:
its name, size, and its path, or why it was skipped (over
maxInboundFileBytes, not on the service's file host), or that it is not on
this machine (a fleet's reply lists its files everywhere; they stay on the
machine that landed it). The text is shown on one line with control characters escaped (a
newline is \n), so a message cannot rewrite the terminal. --session shows
one session's. -o json prints each message as one JSON object a line.
-f keeps printing messages as they land, until interrupted.

Reading takes nothing away: the inbox is left as it is. A file that is not
a valid message of its session (a symbolic link, a FIFO, too large,
garbage, another session's) is named on stderr and skipped, the rest is
still shown, and the exit code is 1.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if session != "" && !bus.ValidInboxSession(session) {
				return &exitError{code: exitInvalid, err: fmt.Errorf("--session %q is not a session name: [A-Za-z0-9._:-], not starting with a dot, at most %d characters", linefile.Printable(session), bus.MaxSessionLen)}
			}
			if resync <= 0 {
				return &exitError{code: exitInvalid, err: fmt.Errorf("--resync-period %v: must be positive", resync)}
			}
			agentDir, specPath, err := g.paths()
			if err != nil {
				return err
			}
			if err := checkNameArg(name); err != nil {
				return err
			}
			dirs, err := bus.Paths(agentDir, name)
			if err != nil {
				return &exitError{code: exitInvalid, err: err}
			}
			// A bus is a daemon's even when the spec no longer names it:
			// its inbox may still hold replies.
			if _, err := lookNames(look(cmd, g, agentDir, specPath), []string{name}, func(string) bool {
				fi, err := os.Lstat(dirs.Dir)
				return err == nil && fi.IsDir()
			}); err != nil {
				return err
			}
			p := &inboxPrinter{w: bufio.NewWriter(cmd.OutOrStdout()), json: output == "json", dirs: dirs}
			r := bus.NewInboxReader(dirs, session, warnInboxSkip(cmd.ErrOrStderr()))
			if follow {
				ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
				defer stop()
				err = bus.FollowInbox(ctx, r, resync, p.print)
			} else {
				var msgs []bus.InboxMessage
				if msgs, _, err = r.Scan(); err == nil {
					err = p.print(msgs)
				}
			}
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			if r.Skipped() {
				return &exitError{code: exitNotDone, err: errors.New("some of the inbox was skipped (see the warnings above)")}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing messages as they land, until interrupted")
	cmd.Flags().StringVar(&session, "session", "", "show only this session's messages")
	addOutputFlag(cmd, &output, textFormats) // json: one object a line
	cmd.Flags().DurationVar(&resync, "resync-period", inboxResync, "with -f, how often the inbox is read again without an event")
	_ = cmd.Flags().MarkHidden("resync-period")
	return cmd
}

// warnInboxSkip prints on w what the inbox reader passed over. Paths come
// from directory listings, so they are made printable too.
func warnInboxSkip(w io.Writer) func(path, reason string) {
	return func(path, reason string) {
		fmt.Fprintf(w, "warning: inbox: skipped %s\n", linefile.Printable(path+": "+reason))
	}
}

// inboxPrinter prints messages as text lines or JSON lines, flushing after
// each batch so that a follower sees a message as it lands.
type inboxPrinter struct {
	w    *bufio.Writer
	json bool
	dirs bus.Dirs
}

func (p *inboxPrinter) print(msgs []bus.InboxMessage) error {
	for _, m := range msgs {
		if p.json {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // the text is plain: & < > as written
			if err := enc.Encode(m); err != nil {
				return err
			}
			if _, err := p.w.Write(terminalSafeJSON(buf.Bytes())); err != nil {
				return err
			}
			continue
		}
		if _, err := io.WriteString(p.w, inboxTextLine(m)); err != nil {
			return err
		}
		for _, f := range m.Files {
			path, err := p.here(m.Session, f)
			if _, err := io.WriteString(p.w, inboxFileLine(f, path, err)); err != nil {
				return err
			}
		}
	}
	return p.w.Flush()
}

// inboxTextLine is m's line of text: time, session, user and what was said,
// a reply's text or a decision's choice beside its ask's id. Session,
// user and ask are tokens of a safe alphabet (DecodeInbox checked); the
// text is anything a user wrote, and the choice is shown as safely.
func inboxTextLine(m bus.InboxMessage) string {
	switch {
	case !m.IsDecision():
		return fmt.Sprintf("%s  %s  %s  %s\n", m.TS, m.Session, m.User, linefile.Printable(m.Text))
	case m.Choice == bus.ChoiceExpired:
		return fmt.Sprintf("%s  %s  -  expired: nobody decided (ask %s)\n", m.TS, m.Session, m.Ask)
	}
	return fmt.Sprintf("%s  %s  %s  decided: %s (ask %s)\n", m.TS, m.Session, m.User, linefile.Printable(m.Choice), m.Ask)
}

// here says where f, a file of a reply of session, is on this machine:
// its path, or why it is not there (a fleet's reply landed on another
// machine keeps its files there; only the listing travels).
func (p *inboxPrinter) here(session string, f bus.InboxFile) (path string, err error) {
	if f.Skipped != "" {
		return "", nil
	}
	if _, err := bus.LandedFile(p.dirs, session, f); err != nil {
		return "", err
	}
	return filepath.Join(p.dirs.Inbox, session, f.Path), nil
}

// inboxFileLine is the line under a reply of one of its files: its name
// (and the service's, when it had to be changed), its size, and its path
// here, or why it was skipped, or why it is not here.
func inboxFileLine(f bus.InboxFile, path string, err error) string {
	name := linefile.Printable(f.Name)
	if f.Original != "" {
		name += " (sent as " + linefile.Printable(f.Original) + ")"
	}
	where := linefile.Printable(path)
	switch {
	case f.Skipped != "":
		where = "skipped: " + linefile.Printable(f.Skipped)
	case errors.Is(err, fs.ErrNotExist):
		where = "not on this machine (it stays where the daemon landed it)"
	case err != nil:
		where = "not readable here: " + linefile.Printable(err.Error())
	}
	return fmt.Sprintf("    file  %s  %s  %s\n", name, inboxFileSize(f.Size), where)
}

// inboxFileSize is n bytes for people: to one decimal in the largest binary
// unit it reaches.
func inboxFileSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, units := float64(n)/unit, "KMGTPE"
	i := 0
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}

// terminalSafeJSON escapes, as \uXXXX, the characters that encoding/json
// leaves raw but a terminal acts on or that reorder text: DEL, the C1
// controls, Unicode format characters. They can only be inside strings
// (JSON's own syntax is ASCII), so the result decodes to the same value.
func terminalSafeJSON(data []byte) []byte {
	if !bytes.ContainsFunc(data, unsafeInJSON) {
		return data
	}
	var b bytes.Buffer
	for _, r := range string(data) {
		switch {
		case !unsafeInJSON(r):
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.Bytes()
}

// unsafeInJSON is what Printable would escape, but the line's end.
func unsafeInJSON(r rune) bool {
	return r != '\n' && linefile.Printable(string(r)) != string(r)
}
