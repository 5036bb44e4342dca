package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/localapi"
)

type sendFlags struct {
	session, event, title, level, id string
	files                            []string
}

func newSendCommand(g *globals) *cobra.Command {
	f := &sendFlags{}
	cmd := &cobra.Command{
		Use:   "send NAME --session S [TEXT|-]",
		Short: "Queue one message for a daemon to post: writes one outbox file and prints its id",
		Long: `Queue one message in the outbox of daemon NAME, for its relay to post to the
session's thread: one file, written whole or not at all, through the running
loop when one answers (with the loop's spec), else from this process. The
message's id is printed on stdout, and nothing else.

The text is TEXT, or standard input when TEXT is "-" (at most 1 MiB); with no
TEXT it is empty (an open or close needs none). Without --id a new id is made;
give one to make a retry safe: the same id with the same content is the same
message, queued once, and with other content an error. An id is 1 to 64 of
A-Z a-z 0-9 . _ - and does not start with "." (such a file is a producer's
temp file, which the relay never reads).

Nothing is queued in vain without a word: a message the daemon's verbosity
leaves out (lean, the default, posts no info message) is written and counted
as filtered, and send says so on stderr; a message for a session that was
closed is refused (exit 1), naming when it closed.

--file PATH (repeatable, at most 10) attaches a file: each is copied into the
bus's files/ first (a regular file only: a link, a FIFO or a device is
refused), then the message naming them is written. The relay posts each file
after the text, as its own message, exactly once; a file over the service's
limits fails the message (failed/), naming the limit.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSend(cmd, g, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.session, "session", "", "the session the message belongs to (required): one thread, or one root and its replies")
	fl.StringVar(&f.event, "event", bus.EventMessage, "message, open (start the session's thread) or close (end it)")
	fl.StringVar(&f.title, "title", "", "the session's title: its thread's name")
	fl.StringVar(&f.level, "level", bus.LevelInfo, "info, action or error (a lean daemon posts only action and error messages)")
	fl.StringVar(&f.id, "id", "", "the message's id, [A-Za-z0-9._-]{1,64} not starting with '.' (default: a new ULID)")
	fl.StringArrayVar(&f.files, "file", nil, "attach the file at PATH, posted after the text (repeatable, at most 10)")
	return cmd
}

func runSend(cmd *cobra.Command, g *globals, f *sendFlags, args []string) error {
	name := args[0]
	if err := checkNameArg(name); err != nil {
		return err
	}
	if f.session == "" {
		return &exitError{code: exitInvalid, err: errors.New("send: --session is required")}
	}
	text := ""
	if len(args) == 2 {
		text = args[1]
		if text == "-" {
			var err error
			if text, err = readText(cmd.InOrStdin()); err != nil {
				return err
			}
		}
	}
	id := f.id
	if id == "" {
		// Made here, not by whoever writes: a command line that gives
		// --id is the same message however often it runs.
		id = bus.NewID()
	}
	m := bus.Message{ID: id, Session: f.session, Event: f.event, Title: f.title, Text: text, Level: f.level}
	agentDir, specPath, err := g.paths()
	if err != nil {
		return err
	}
	entries, err := attachFiles(agentDir, name, &m, f.files)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	resp, err := queueMessage(ctx, cmd, g, agentDir, specPath, name, m)
	if err != nil {
		entries.remove()
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), resp.ID)
	if resp.LeftOut != "" {
		// stdout stays the id alone, for scripts; the word is for the
		// person, who would otherwise wait for a post that never comes.
		fmt.Fprintf(cmd.ErrOrStderr(), "send: %s\n", resp.LeftOut)
	}
	return nil
}

// copiedFiles are the files/ entries send copied, removed again when the
// message is not queued.
type copiedFiles []string

func (c copiedFiles) remove() {
	for _, p := range c {
		_ = os.Remove(p)
	}
}

// attachFiles copies each of paths into name's bus (bus.AddFile) as m's
// attachments, in order, before m is written: the relay never reads a
// message whose files are not whole.
func attachFiles(agentDir, name string, m *bus.Message, paths []string) (copiedFiles, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if len(paths) > bus.MaxAttachments {
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("send: %d files, over %d, the most one message carries", len(paths), bus.MaxAttachments)}
	}
	if m.Event != bus.EventMessage {
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("send: --file goes with a message (--event message), not %s", m.Event)}
	}
	d, err := bus.Paths(agentDir, name)
	if err != nil {
		return nil, &exitError{code: exitInvalid, err: err}
	}
	var copied copiedFiles
	for k, p := range paths {
		a, err := bus.AddFile(d, m.ID, k, p)
		if err != nil {
			copied.remove()
			return nil, &exitError{code: exitInvalid, err: fmt.Errorf("send: --file %w", err)}
		}
		copied = append(copied, filepath.Join(d.Files, a.File))
		m.Attachments = append(m.Attachments, a)
	}
	return copied, nil
}

// readText reads a message's text from r, refusing more than a text may
// hold without reading further.
func readText(r io.Reader) (string, error) {
	data, err := io.ReadAll(io.LimitReader(r, bus.MaxTextSize+1))
	if err != nil {
		return "", &exitError{code: exitNotDone, err: fmt.Errorf("reading the text from stdin: %w", err)}
	}
	if len(data) > bus.MaxTextSize {
		return "", &exitError{code: exitInvalid, err: fmt.Errorf("text: stdin holds more than %d bytes (1 MiB), the most a message may hold", bus.MaxTextSize)}
	}
	return string(data), nil
}

// queueMessage puts m in name's outbox: through the loop's API when a loop
// answers, else directly (send and ask alike).
func queueMessage(ctx context.Context, cmd *cobra.Command, g *globals, agentDir, specPath, name string, m bus.Message) (*localapi.SendResponse, error) {
	a := newAPIChoice(cmd.ErrOrStderr(), &g.fleet, agentDir, specPath, g.log, nil)
	return ask(a, "", func(b localapi.Backend) (*localapi.SendResponse, error) {
		return b.Send(ctx, localapi.SendRequest{Name: name, Message: m})
	})
}
