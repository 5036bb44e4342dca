package bus

import (
	"context"
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/dirwatch"
)

// FollowInbox hands deliver what r finds in the inbox now, then each
// message as it lands, until ctx is done (nil) or reading or deliver
// fails (that error). It is woken by a watch on the inbox and on each of
// its session directories, and reads again every resync whatever the
// watch said: a safety net for a watch that could not be added (the bus
// not made yet) or that lost events, not the way news arrives.
func FollowInbox(ctx context.Context, r *InboxReader, resync time.Duration, deliver func([]InboxMessage) error) error {
	w, err := dirwatch.New()
	if err != nil {
		return fmt.Errorf("watching the inbox: %w", err)
	}
	defer func() { _ = w.Close() }()
	wake := make(chan struct{}, 1)
	watched := map[string]bool{}
	var cancels []func()
	// Cancelled before the watch is closed (deferred earlier, run later):
	// each ends its forwarding goroutine.
	defer func() {
		for _, cancel := range cancels {
			cancel()
		}
	}()
	// Hidden names are stages and temp files: their landing is a rename to
	// a visible name, which is the one event that matters.
	visible := func(base string) bool { return base != "" && base[0] != '.' }
	watch := func(dir string) error {
		ch, cancel, err := w.Subscribe(dir, visible)
		if err != nil {
			return fmt.Errorf("watching %s: %w", dir, err)
		}
		watched[dir] = true
		go func() {
			for range ch { // closed by cancel
				select {
				case wake <- struct{}{}:
				default: // one pending wake is enough
				}
			}
		}()
		cancels = append(cancels, cancel)
		return nil
	}
	// Watched before the first read, so nothing lands unseen between them.
	if err := watch(r.dirs.Inbox); err != nil {
		return err
	}
	tick := time.NewTicker(resync)
	defer tick.Stop()
	for {
		msgs, sessions, err := r.Scan()
		if err != nil {
			return err
		}
		if err := deliver(msgs); err != nil {
			return err
		}
		added := false
		for _, dir := range sessions {
			if !watched[dir] {
				if err := watch(dir); err != nil {
					return err
				}
				added = true
			}
		}
		if added {
			continue // a file may have landed before its dir's watch: read again
		}
		// A dir removed and made again, or a watch lost to an overflow, is
		// watched again here, at the latest on the next resync.
		for dir := range watched {
			w.Rewatch(dir)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-tick.C:
		}
	}
}
