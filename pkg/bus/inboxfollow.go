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
	w, err := newInboxWatch()
	if err != nil {
		return err
	}
	defer w.close()
	// Watched before the first read, so nothing lands unseen between them.
	if err := w.add(r.dirs.Inbox); err != nil {
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
		added, err := w.addNew(sessions)
		if err != nil {
			return err
		}
		if added {
			continue // a file may have landed before its dir's watch: read again
		}
		w.rewatch()
		select {
		case <-ctx.Done():
			return nil
		case <-w.wake:
		case <-tick.C:
		}
	}
}

// inboxWatch wakes a follower when a visible file changes in any of the
// dirs added: the inbox and its sessions.
type inboxWatch struct {
	w       *dirwatch.Watch
	wake    chan struct{}
	watched map[string]bool
	cancels []func()
}

func newInboxWatch() (*inboxWatch, error) {
	w, err := dirwatch.New()
	if err != nil {
		return nil, fmt.Errorf("watching the inbox: %w", err)
	}
	return &inboxWatch{w: w, wake: make(chan struct{}, 1), watched: map[string]bool{}}, nil
}

// visible: hidden names are stages and temp files, whose landing is a
// rename to a visible name, the one event that matters.
func visible(base string) bool { return base != "" && base[0] != '.' }

func (i *inboxWatch) add(dir string) error {
	ch, cancel, err := i.w.Subscribe(dir, visible)
	if err != nil {
		return fmt.Errorf("watching %s: %w", dir, err)
	}
	i.watched[dir] = true
	i.cancels = append(i.cancels, cancel)
	go func() {
		for range ch { // closed by cancel
			select {
			case i.wake <- struct{}{}:
			default: // one pending wake is enough
			}
		}
	}()
	return nil
}

// addNew adds the dirs not watched yet, and says whether there were any.
func (i *inboxWatch) addNew(dirs []string) (added bool, err error) {
	for _, dir := range dirs {
		if !i.watched[dir] {
			if err := i.add(dir); err != nil {
				return added, err
			}
			added = true
		}
	}
	return added, nil
}

// rewatch watches again a dir removed and made again, or a watch lost to
// an overflow: here, at the latest on the next resync.
func (i *inboxWatch) rewatch() {
	for dir := range i.watched {
		i.w.Rewatch(dir)
	}
}

// close cancels every subscription, ending its forwarding goroutine,
// before the watch is closed.
func (i *inboxWatch) close() {
	for _, cancel := range i.cancels {
		cancel()
	}
	_ = i.w.Close()
}
