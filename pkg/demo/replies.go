package demo

import (
	"context"
	"fmt"
	"path/filepath"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

// Handled is what daemon name made of the demo's two replies: what landed
// in ReplySession's inbox, and how many replies its record counts as
// ignored for coming from a user not authorized.
type Handled struct {
	Landed  []bus.InboxMessage
	Ignored int64
}

// AwaitReplies waits until daemon name has handled both replies: one
// landed, one ignored. It waits on the inbox's and the record's directory
// watches, never on a timer; when ctx ends first it returns what was
// handled so far with ctx's error. The demo runs on files, so the record
// is the file's.
func (e *Env) AwaitReplies(ctx context.Context, name string) (Handled, error) {
	var h Handled
	dirs, err := bus.Paths(e.AgentDir, name)
	if err != nil {
		return h, err
	}
	paths := ownership.PathsFor(e.AgentDir, name)
	w, err := dirwatch.New()
	if err != nil {
		return h, fmt.Errorf("watching %s's inbox: %w", name, err)
	}
	defer func() { _ = w.Close() }()
	wake := make(chan struct{}, 1)
	// Watched before the first read, so nothing changes unseen between.
	for _, dir := range []string{filepath.Join(dirs.Inbox, ReplySession), paths.Dir} {
		ch, cancel, err := w.Subscribe(dir, nil)
		if err != nil {
			return h, fmt.Errorf("watching %s: %w", dir, err)
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
	r := bus.NewInboxReader(dirs, ReplySession, nil)
	for {
		msgs, _, err := r.Scan()
		if err != nil {
			return h, err
		}
		h.Landed = append(h.Landed, msgs...)
		if rec := fsstore.ReadState(paths); rec.State != nil && rec.State.Relay != nil {
			h.Ignored = rec.State.Relay.InboxIgnoredBy[string(inbound.Unauthorized)]
		}
		if len(h.Landed) > 0 && h.Ignored > 0 {
			return h, nil
		}
		select {
		case <-ctx.Done():
			return h, ctx.Err()
		case <-wake:
		}
	}
}
