package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/demo"
)

// demoReplyWait bounds how long the demo waits for its two replies to be
// handled: the one that lands and the one that is ignored.
const demoReplyWait = time.Minute

// demoReplies has the demo's users reply in daemon name's open session
// (the authorized one and another), then shows what the daemon made of
// it: the inbox as `reconciler inbox` prints it, and the ignored count
// from its record.
func demoReplies(ctx context.Context, out io.Writer, env *demo.Env, name string) error {
	if err := env.Reply(ctx, name); err != nil {
		if ctx.Err() != nil {
			return nil // the demo is ending
		}
		return err
	}
	wait, cancel := context.WithTimeout(ctx, demoReplyWait)
	defer cancel()
	h, err := env.AwaitReplies(wait, name)
	switch {
	case err == nil:
		return showReplies(out, name, h.Landed, h.Ignored)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		_, err := fmt.Fprintf(out, "demo: %s: the replies were not handled within %v (%d landed, %d ignored)\n", name, demoReplyWait, len(h.Landed), h.Ignored)
		return err
	case ctx.Err() != nil:
		return nil // the demo is ending
	}
	return err
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
