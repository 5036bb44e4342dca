package fleetbus

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/dirwatch"
)

// InboxFollower keeps this machine's inboxes in step with the fleet's
// (DESIGN 10): what this machine's daemon landed (its ledger's landed/)
// is put in etcd, and every file of the fleet's inbox is copied into this
// machine's inbox exactly once (inboxledger.go says how). Every machine's
// loop runs one for the names of its spec, whichever machine owns them,
// so an agent anywhere reads the replies to its sessions.
type InboxFollower struct {
	Client   *clientv3.Client
	Prefix   string
	AgentDir string
	// Names are the names to follow: the spec's.
	Names func() []string
	Log   logr.Logger
	// Every is how often Names is asked again (default 5 s).
	Every time.Duration
	// Now is the clock (tests); time.Now when nil.
	Now func() time.Time

	locks sync.Map // name -> *sync.Mutex: one name's work, one at a time

	mu      sync.Mutex
	lease   clientv3.LeaseID
	leaseAt time.Time
	refused map[string]int64 // key -> the revision refused, so logged once
}

// Run follows every name Names gives until ctx ends.
func (f *InboxFollower) Run(ctx context.Context) error {
	w, err := dirwatch.New()
	if err != nil {
		return fmt.Errorf("following the fleet's inbox: %w", err)
	}
	defer func() { _ = w.Close() }()
	every := f.Every
	if every == 0 {
		every = 5 * time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	running := map[string]context.CancelFunc{}
	var wg sync.WaitGroup
	defer func() {
		for _, stop := range running {
			stop()
		}
		wg.Wait()
	}()
	for {
		want := map[string]bool{}
		for _, name := range f.Names() {
			want[name] = true
			if running[name] != nil {
				continue
			}
			nctx, stop := context.WithCancel(ctx)
			running[name] = stop
			wg.Add(1)
			go func() { defer wg.Done(); f.follow(nctx, w, name) }()
		}
		for name, stop := range running {
			if !want[name] {
				stop()
				delete(running, name)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// follow keeps name's inbox in step until ctx ends: a Sync, then what the
// watch reports and each landing here, and a Sync again whenever the
// watch ends (etcd compacted past it, or lost its leader) or at Resync.
func (f *InboxFollower) follow(ctx context.Context, w *dirwatch.Watch, name string) {
	d, err := bus.Paths(f.AgentDir, name)
	if err != nil {
		f.Log.Error(err, "the inbox of a name cannot be followed", "name", name)
		return
	}
	var landings <-chan struct{}
	reported := false
	for ctx.Err() == nil {
		rev, err := f.Sync(ctx, d, name)
		if err != nil {
			if !reported {
				f.Log.Error(err, "the fleet's inbox cannot be followed now; trying again", "name", name)
			}
			reported = true
			if !sleep(ctx, time.Second) {
				return
			}
			continue
		}
		reported = false
		if landings == nil {
			ch, unsubscribe, err := w.Subscribe(ledgerOf(d).stateDir(landed), visible)
			if err == nil {
				defer unsubscribe()
				landings = ch
			}
		}
		f.watch(ctx, d, name, rev, landings)
	}
}

func visible(base string) bool { return base != "" && base[0] != '.' }

// watch copies each entry the fleet's inbox gets after rev, and puts
// each landing here, until the watch ends, ctx ends, or Resync passed.
func (f *InboxFollower) watch(ctx context.Context, d bus.Dirs, name string, rev int64, landings <-chan struct{}) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dir := Dir(f.Prefix, name)
	wch := f.Client.Watch(clientv3.WithRequireLeader(wctx), inboxPrefix(dir), clientv3.WithPrefix(), clientv3.WithRev(rev+1))
	resync := time.NewTimer(Resync)
	defer resync.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-resync.C:
			return
		case resp, ok := <-wch:
			if !ok || resp.Err() != nil {
				return
			}
			unlock := f.lock(name)
			for _, ev := range resp.Events {
				if ev.Type == clientv3.EventTypePut {
					f.take(d, dir, string(ev.Kv.Key), ev.Kv.Value, ev.Kv.ModRevision)
				}
			}
			unlock()
		case <-landings:
			unlock := f.lock(name)
			err := f.putLanded(ctx, d, dir)
			unlock()
			if err != nil {
				f.Log.V(1).Info("putting a landing in the fleet's inbox: etcd did not answer; it waits for the next pass", "name", name, "error", err.Error())
			}
		}
	}
}

// Sync brings name's inbox here in step with the fleet's: it completes
// or removes what a crash cut short, puts every landing here in etcd,
// and copies every entry of the fleet's inbox not had here. It returns
// the revision of the listing, for the watch to follow from.
func (f *InboxFollower) Sync(ctx context.Context, d bus.Dirs, name string) (int64, error) {
	unlock := f.lock(name)
	defer unlock()
	l := ledgerOf(d)
	if err := bus.EnsureDirs(d); err != nil {
		return 0, err
	}
	if err := l.ensure(); err != nil {
		return 0, err
	}
	if err := f.recover(d, l); err != nil {
		return 0, err
	}
	dir := Dir(f.Prefix, name)
	if err := f.putLanded(ctx, d, dir); err != nil {
		return 0, err
	}
	rev, inEtcd, err := f.copyAll(ctx, d, dir)
	if err != nil {
		return 0, err
	}
	if err := l.prune(f.now(), inEtcd); err != nil {
		f.Log.Error(err, "the fleet inbox ledger keeps entries past their time", "name", name)
	}
	return rev, nil
}

// copyAll takes every entry of the fleet's inbox, a page of keys at a
// time from one revision's view, and returns that revision and the
// entries listed. Only the keys
// are listed: this runs every Resync on every machine for every name, and
// the values (up to bus.MaxInboxFileSize each, a day of them) are read
// only for the entries the ledger does not have, a few at most.
func (f *InboxFollower) copyAll(ctx context.Context, d bus.Dirs, dir string) (int64, map[entry]bool, error) {
	prefix := inboxPrefix(dir)
	from, end := prefix, clientv3.GetPrefixRangeEnd(prefix)
	var rev int64
	listed := map[entry]bool{}
	for {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(pageSize), clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend), clientv3.WithKeysOnly()}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := f.Client.Get(ctx, from, opts...)
		if err != nil {
			return 0, nil, fmt.Errorf("reading the fleet's inbox %s: %w", prefix, err)
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		for _, kv := range resp.Kvs {
			key := string(kv.Key)
			e, named, settled := f.settled(d, dir, key)
			if named {
				listed[e] = true
			}
			switch {
			case !named:
				f.take(d, dir, key, nil, kv.ModRevision) // refused by its name alone
				continue
			case settled:
				continue
			}
			got, err := f.Client.Get(ctx, key, clientv3.WithRev(rev))
			if err != nil {
				return 0, nil, fmt.Errorf("reading the fleet's inbox entry %s: %w", key, err)
			}
			for _, kv := range got.Kvs {
				f.take(d, dir, key, kv.Value, kv.ModRevision)
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return rev, listed, nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// settled returns the entry key names, whether its names are of the
// bus's alphabet, and whether the ledger has it already, for good: landed
// or put here, or copied (Sync's recover completed any copy cut short),
// so take would do nothing with its value.
func (f *InboxFollower) settled(d bus.Dirs, dir, key string) (e entry, named, settled bool) {
	session, file, _ := strings.Cut(strings.TrimPrefix(key, inboxPrefix(dir)), "/")
	e = entry{session, file}
	if !bus.ValidInboxSession(session) || !bus.ValidInboxFile(file) {
		return e, false, false
	}
	state, err := ledgerOf(d).state(e)
	return e, true, err == nil && state != notHere
}

// lock serializes the work on name's inbox: a watch event, a landing and
// a Sync never copy one entry side by side.
func (f *InboxFollower) lock(name string) (unlock func()) {
	m, _ := f.locks.LoadOrStore(name, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

func (f *InboxFollower) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// sleep waits d, or less if ctx ends first: false then.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
