package fleetbus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/platform"
)

// Forwarder moves this machine's outbox files into the fleet's outbox in
// etcd, for whichever machine owns each name to post. Any machine may
// forward: storing is create-if-absent, so two forwarders of one file, or
// a file stored and then retried, store it once.
type Forwarder struct {
	Client   *clientv3.Client
	Prefix   string
	AgentDir string
	// Names are the names to forward for: the spec's.
	Names func() []string
	Log   logr.Logger
	// Every is how often every outbox is looked at without a change seen
	// (default 5 s); a change is forwarded as the watch reports it.
	Every time.Duration

	// leftInPlace are outbox entries failed/ has a record of but that
	// were left in place (not regular files of ours), as they were then:
	// not failed again until they change.
	leftInPlace map[string]platform.Entry
}

// Run forwards until ctx ends.
func (f *Forwarder) Run(ctx context.Context) error {
	w, err := dirwatch.New()
	if err != nil {
		return fmt.Errorf("forwarding the outbox: %w", err)
	}
	defer func() { _ = w.Close() }()
	every := f.Every
	if every == 0 {
		every = 5 * time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	changed := make(chan struct{}, 1)
	subs := map[string]func(){}
	defer func() {
		for _, unsubscribe := range subs {
			unsubscribe()
		}
	}()
	reported := map[string]bool{}
	for {
		want := map[string]bool{}
		for _, name := range f.Names() {
			want[name] = true
			d, err := bus.Paths(f.AgentDir, name)
			if err != nil {
				continue
			}
			// Producers write only into an outbox that exists; on a
			// machine that never ran the name, this makes it.
			if err := bus.EnsureDirs(d); err != nil {
				if !reported[name] {
					f.Log.Error(err, "the bus of a name cannot be used; its outbox is not forwarded", "name", name)
				}
				reported[name] = true
				continue
			}
			delete(reported, name)
			if _, ok := subs[name]; !ok {
				ch, unsubscribe, err := w.Subscribe(d.Outbox, func(base string) bool { return base != "" && base[0] != '.' })
				if err == nil {
					subs[name] = unsubscribe
					go forwardPokes(ctx, ch, changed)
				}
			}
			f.ForwardAll(ctx, d, name)
		}
		for name, unsubscribe := range subs {
			if !want[name] {
				unsubscribe()
				delete(subs, name)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-tick.C:
		}
	}
}

// forwardPokes passes every poke of from to to, until ctx ends or from closes.
func forwardPokes(ctx context.Context, from <-chan struct{}, to chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-from:
			if !ok {
				return
			}
			select {
			case to <- struct{}{}:
			default:
			}
		}
	}
}

// ForwardAll forwards every file of name's outbox in d, through the bus
// judged now by its descriptors (bus.OpenBox): a bus refused, or not
// there yet, is nothing to forward, and nothing in it is touched.
func (f *Forwarder) ForwardAll(ctx context.Context, d bus.Dirs, name string) {
	box, err := bus.OpenBox(d)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			f.Log.Error(err, "the outbox cannot be trusted; it is not forwarded", "name", name)
		}
		return
	}
	defer box.Close()
	names, err := box.List()
	if err != nil {
		f.Log.Error(err, "listing the outbox to forward it", "name", name)
		return
	}
	present := map[string]bool{}
	for _, file := range names {
		present[filepath.Join(d.Outbox, file)] = true
	}
	for p := range f.leftInPlace {
		if filepath.Dir(p) == d.Outbox && !present[p] {
			delete(f.leftInPlace, p)
		}
	}
	for _, file := range names {
		if ctx.Err() != nil {
			return
		}
		if left, ok := f.leftInPlace[filepath.Join(d.Outbox, file)]; ok {
			if now, err := box.Stat(file); err == nil && now.Same(left) {
				continue
			}
			delete(f.leftInPlace, filepath.Join(d.Outbox, file)) // changed: judged again
		}
		// In id order, and none past one etcd did not take: the owner's
		// relay posts a session in the order its messages reach etcd, so
		// a later message stored first would open the session without
		// its title, or post ahead of what was written before it. A file
		// not a message yet while young (written in place) holds back
		// the ones after it likewise, until its grace ends.
		later, err := f.forward(ctx, box, d, name, file)
		if err != nil {
			f.Log.V(1).Info("forwarding an outbox file: etcd did not answer; it and the files after it wait for the next try", "name", name, "file", file, "error", err.Error())
			return
		}
		if later {
			f.Log.V(1).Info("an outbox file is not a message yet; it and the files after it wait for its grace", "name", name, "file", file)
			return
		}
	}
}

// Forward stores one outbox file in the fleet's outbox and removes it
// from disk once stored, or once the same message is already stored or
// done. A file that is not a message, or whose id names another message
// in etcd, goes to failed/ with the reason, as the relay would send it
// (one not a message yet while young is left for a later look). An
// error means etcd did not answer, or the bus cannot be trusted: the
// file stays for the next try.
func (f *Forwarder) Forward(ctx context.Context, d bus.Dirs, name, file string) error {
	box, err := bus.OpenBox(d)
	if err != nil {
		return err
	}
	defer box.Close()
	_, err = f.forward(ctx, box, d, name, file)
	return err
}

// forward is Forward through box; later: the file is not a message yet,
// but young enough to be still written (bus.Judge).
func (f *Forwarder) forward(ctx context.Context, box *bus.Box, d bus.Dirs, name, file string) (later bool, err error) {
	m, e, err := box.Take(file)
	switch verdict, _ := bus.Judge(err, e.ModTime, time.Now()); verdict {
	case bus.Gone:
		return false, nil
	case bus.Later:
		return true, nil
	case bus.Refuse:
		return false, f.fail(box, d, file, err.Error())
	}
	id := m.ID
	data, err := bus.Encode(m)
	if err != nil {
		return false, f.fail(box, d, file, err.Error())
	}
	dir := Dir(f.Prefix, name)
	okey, dkey := outboxKey(dir, id), doneKey(dir, id)
	resp, err := f.Client.Txn(ctx).If(
		clientv3.Compare(clientv3.CreateRevision(okey), "=", 0),
		clientv3.Compare(clientv3.CreateRevision(dkey), "=", 0),
	).Then(clientv3.OpPut(okey, string(data))).Else(clientv3.OpGet(okey), clientv3.OpGet(dkey)).Commit()
	if errors.Is(err, rpctypes.ErrRequestTooLarge) {
		// Refused for good, not unanswered: it would hold back every
		// file after it.
		return false, f.fail(box, d, file, "too large for the fleet's etcd (its request size limit): this message is not posted")
	}
	if err != nil {
		return false, fmt.Errorf("storing %s in %s: %w", file, okey, err)
	}
	if !resp.Succeeded && !sameMessage(resp, m) {
		return false, f.fail(box, d, file, fmt.Sprintf("id %s is already used in the fleet for other content: this message is not posted", id))
	}
	if err := box.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
		f.Log.Error(err, "forwarded, but the outbox file cannot be removed", "file", filepath.Join(d.Outbox, file))
	}
	return false, nil
}

// sameMessage: the entry or the done id the failed store found is m's.
func sameMessage(resp *clientv3.TxnResponse, m bus.Message) bool {
	sum := bus.MessageSum(m)
	if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
		prev, err := bus.Decode(kvs[0].Value)
		return err == nil && bus.MessageSum(prev) == sum
	}
	if kvs := resp.Responses[1].GetResponseRange().Kvs; len(kvs) > 0 {
		return string(kvs[0].Value) == sum
	}
	return false
}

func (f *Forwarder) fail(box *bus.Box, d bus.Dirs, file, reason string) error {
	f.Log.Error(errors.New(reason), "outbox file refused; moved to failed/", "file", filepath.Join(d.Outbox, file))
	if _, err := box.Fail(file, reason); err != nil && !errors.Is(err, os.ErrNotExist) {
		f.Log.Error(err, "outbox file left in place", "file", filepath.Join(d.Outbox, file))
		if e, serr := box.Stat(file); serr == nil {
			if f.leftInPlace == nil {
				f.leftInPlace = map[string]platform.Entry{}
			}
			f.leftInPlace[filepath.Join(d.Outbox, file)] = e
		}
	}
	return nil
}
