package localapi

import (
	"context"
	"fmt"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// checkOpen refuses m when the relay's journal in dirs records its session
// as closed, or a close of it waits in the outbox ahead of m: the relay
// would move the file to failed/ later, after send
// said nothing (DESIGN 5, "Nothing vanishes without a word"). A close
// again is no mistake (the relay takes it as done), and neither is a
// retry of a message already posted under its id before the close.
//
// The journal is read, never written, as the relay folds it. One that
// cannot be read refuses nothing: the relay posts nothing from it either
// (RelayBlocked, in status), so the message waits with the backlog.
func checkOpen(ctx context.Context, name string, dirs bus.Dirs, m bus.Message) error {
	if m.Event == bus.EventClose {
		return nil
	}
	if posted, err := bus.Posted(dirs.Outbox, m); err == nil && posted {
		return nil
	}
	if id := queuedClose(dirs, m); id != "" {
		return &Error{Message: fmt.Sprintf("send to %s: message %q: session %s is closing: its close (message %q) is queued before this one, and the relay posts a session's messages in id order; send to a new session", name, m.ID, m.Session, id), Code: exitFailed}
	}
	closed, err := relay.SessionClosed(ctx, relay.FileJournal(dirs), m.Session)
	if err != nil || closed == nil {
		return nil
	}
	return &Error{Message: fmt.Sprintf("send to %s: message %q: %v", name, m.ID, closed), Code: exitFailed}
}

// leftOutNote is what send says, beside the id, when the daemon's
// verbosity will leave m out (relay.LeftOut, the relay's own rule): the
// message is written and moved to sent/ unposted, counted as filtered.
// d is the spec's daemon; nil when the spec as read here cannot say (its
// tokens missing here), and then what lean, the default, would do is told.
// "" when the message will be posted.
func leftOutNote(name string, d *spec.Daemon, m bus.Message) string {
	const fix = "give --level action or error to have it posted"
	switch {
	case d == nil && relay.LeftOut(m, false):
		return fmt.Sprintf("the spec as read here does not say %s's verbosity: under lean, the default, this info message is not posted (it moves to sent/ and counts as filtered); %s", name, fix)
	case d != nil && relay.LeftOut(m, d.Config.Verbosity == spec.VerbosityVerbose):
		return fmt.Sprintf("%s has verbosity: %s, which leaves info messages out: this one is not posted (it moves to sent/ and counts as filtered); %s, or set verbosity: verbose", name, d.Config.Verbosity, fix)
	}
	return ""
}

// queuedClose is the id of a close of m's session waiting in the outbox
// ahead of m (a smaller id: the relay's order), "" when there is none or
// the outbox cannot be read (the relay refuses that bus too, and says so).
// Read as the relay reads it: through the bus judged by its descriptors,
// only our own regular files.
func queuedClose(dirs bus.Dirs, m bus.Message) string {
	box, err := bus.OpenBox(dirs)
	if err != nil {
		return ""
	}
	defer box.Close()
	names, err := box.List()
	if err != nil {
		return ""
	}
	for _, name := range names {
		if name >= m.ID+".json" {
			break // sorted: the rest come after m
		}
		q, _, err := box.Take(name)
		if err == nil && q.Session == m.Session && q.Event == bus.EventClose {
			return q.ID
		}
	}
	return ""
}
