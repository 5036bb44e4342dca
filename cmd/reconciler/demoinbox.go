package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/demo"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

// demoReplyWait bounds how long the demo waits for its two replies to be
// handled: the one that lands and the one that is ignored.
const demoReplyWait = time.Minute

// demoReplies has the demo's users reply in daemon name's open session
// (the authorized one and another), then shows what the daemon made of
// it: the inbox as `reconciler inbox` prints it, and the ignored count
// from its record. It waits on the inbox's and the record's directory
// watches, never on a timer but the deadline.
func demoReplies(ctx context.Context, out io.Writer, env *demo.Env, name string) error {
	if err := env.Reply(ctx, name); err != nil {
		if ctx.Err() != nil {
			return nil // the demo is ending
		}
		return err
	}
	dirs, err := bus.Paths(env.AgentDir, name)
	if err != nil {
		return err
	}
	paths := ownership.PathsFor(env.AgentDir, name)
	w, err := dirwatch.New()
	if err != nil {
		return fmt.Errorf("watching %s's inbox: %w", name, err)
	}
	defer func() { _ = w.Close() }()
	wake := make(chan struct{}, 1)
	// Watched before the first read, so nothing changes unseen between.
	for _, dir := range []string{filepath.Join(dirs.Inbox, demo.ReplySession), paths.Dir} {
		ch, cancel, err := w.Subscribe(dir, nil)
		if err != nil {
			return fmt.Errorf("watching %s: %w", dir, err)
		}
		defer cancel()
		go func() {
			for range ch { // closed by cancel
				select {
				case wake <- struct{}{}:
				default: // one pending wake is enough
				}
			}
		}()
	}
	ctx, cancel := context.WithTimeout(ctx, demoReplyWait)
	defer cancel()
	r := bus.NewInboxReader(dirs, demo.ReplySession, nil)
	var landed []bus.InboxMessage
	for {
		msgs, _, err := r.Scan()
		if err != nil {
			return err
		}
		landed = append(landed, msgs...)
		var ignored int64
		if rec := fsstore.ReadState(paths); rec.State != nil && rec.State.Relay != nil {
			ignored = rec.State.Relay.InboxIgnoredBy[string(inbound.Unauthorized)]
		}
		if len(landed) > 0 && ignored > 0 {
			return showReplies(out, name, landed, ignored)
		}
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				_, err := fmt.Fprintf(out, "demo: %s: the replies were not handled within %v (%d landed, %d ignored)\n", name, demoReplyWait, len(landed), ignored)
				return err
			}
			return nil
		case <-wake:
		}
	}
}

// showReplies prints, in one write, what landed as `reconciler inbox`
// prints it and how many replies were ignored.
func showReplies(out io.Writer, name string, landed []bus.InboxMessage, ignored int64) error {
	var lines bytes.Buffer
	if err := (&inboxPrinter{w: bufio.NewWriter(&lines)}).print(landed); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "demo: %s: landed in the inbox, as reconciler inbox %s shows it:\n", name, name)
	for l := range strings.Lines(lines.String()) {
		b.WriteString("demo:   " + l)
	}
	fmt.Fprintf(&b, "demo: %s: ignored %d reply from a user not in authorizedUserIds (counted in: reconciler describe %s)\n", name, ignored, name)
	_, err := io.WriteString(out, b.String())
	return err
}
