package fsstore

import (
	"bytes"
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"sync"
	"time"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/platform"
)

// Owner is a daemon's held ownership: its paths, the State it published
// and the lease on the owner.lock it created. Its methods are safe for
// concurrent use (the heartbeat and the exit path).
type Owner struct {
	paths ownership.Paths
	env   env

	mu    sync.Mutex
	state ownership.State
	raw   []byte // the bytes of our last write of state.json
	// pending are the writes that failed since the last one that did: any
	// of them may have reached the disk before failing (a failed fsync of
	// the directory, say). Bounded: see maxPending.
	pending     [][]byte
	lease       platform.Lease
	lost        error         // once ownership is lost, it stays lost
	lostCh      chan struct{} // closed when lost is set
	released    bool
	lockRemoved bool
	// name are the kernel-held name locks, taken before anything else and
	// dropped by Release (or by the kernel at exit).
	name platform.NameLocks
}

// Acquire takes ownership of the daemon at p for this process (daemon
// start). It refuses, creating nothing, when this process cannot prove its
// own incarnation (ErrNoIncarnation). It refuses while the existing record
// names a live process not proved to be another (*HeldError), and on a
// record that cannot be trusted (*MalformedError). It creates owner.lock by
// link(2); if the lock exists it is reclaimed only when both its creator
// and the record's owner are proved gone (see Reclaim), otherwise the
// *HeldError names the live holder. state.json (transportHealthy false,
// this generation) is published only after re-checking the record and
// while the lock's lease still holds, so a contender that published first
// is never overwritten.
func Acquire(p ownership.Paths, req ownership.AcquireRequest) (*Owner, error) {
	return acquire(p, req, SystemProbe(), defaultEnv())
}

func acquire(p ownership.Paths, req ownership.AcquireRequest, probe Probe, e env) (*Owner, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if _, err := p.Levels(); err != nil {
		return nil, err
	}
	// Before anything is created: without a provable incarnation our
	// record could never be told apart from a reused PID.
	me, err := selfOf(e)
	if err != nil {
		return nil, err
	}
	if e.filesOnly {
		return acquireLocked(p, req, probe, e, me)
	}
	// First of all, the guard no file operation can remove: while another
	// daemon of this name lives, nothing below is even looked at.
	name, err := takeNameLocks(p)
	if err != nil {
		var held *ownership.HeldError
		if errors.As(err, &held) {
			if rec := ReadState(p); rec.State != nil && rec.State.PID == held.PID {
				held.OwnerID = rec.State.OwnerID
			}
		}
		return nil, fmt.Errorf("acquire %s: %w", p.Name(), err)
	}
	o, err := acquireLocked(p, req, probe, e, me)
	if err != nil {
		name.Release()
		return nil, err
	}
	o.name = name
	return o, nil
}

// acquireLocked is Acquire once the name lock is held.
func acquireLocked(p ownership.Paths, req ownership.AcquireRequest, probe Probe, e env, me self) (*Owner, error) {
	if err := EnsureDir(p); err != nil {
		return nil, fmt.Errorf("acquire %s: %w", p.Name(), err)
	}
	// Until the publish, the names made and removed here (our lock, a stale
	// lock taken away) skip their own dir fsyncs: the publish's fsync of
	// this same dir makes them durable with the record, and none must be
	// durable before it (a crash ends every process they name).
	resume := atomicfile.DeferDirSyncs(p.Dir)
	defer resume()
	before := ReadState(p)
	if err := successorAllowed(p, before, probe); err != nil {
		return nil, fmt.Errorf("acquire %s: %w", p.Name(), err)
	}
	lease, err := lockOwner(p, probe, me, e)
	if err != nil {
		return nil, fmt.Errorf("acquire %s: %w", p.Name(), err)
	}
	if e.afterLink != nil {
		e.afterLink()
	}
	if err := stillFree(p, before, lease, probe); err != nil {
		_ = exactUnlinkIfOurs(p.Lock, lease)
		return nil, fmt.Errorf("acquire %s: %w", p.Name(), err)
	}
	now := e.now().UnixMilli()
	st := ownership.State{
		Version: ownership.RecordVersion, Kind: req.Kind, PID: me.pid, OwnerID: req.OwnerID,
		Identity: req.Identity, Incarnation: me.incarnation,
		StartedAt: now, HeartbeatAt: now, TransportHealthy: false, Generation: req.Generation.Opt(),
		BootID: currentBootID(probe),
	}
	data := st.Marshal()
	resume()
	if err := atomicfile.Write(p.State, data); err != nil {
		_ = exactUnlinkIfOurs(p.Lock, lease)
		return nil, fmt.Errorf("acquire %s: publish: %w", p.Name(), err)
	}
	return &Owner{paths: p, env: e, state: st, raw: data, lease: lease, lostCh: make(chan struct{})}, nil
}

// maxReclaimPoll caps the interval at which Acquire looks again while
// another process reclaims.
const maxReclaimPoll = 32 * time.Millisecond

// lockOwner creates owner.lock, reclaiming a stale one. Another reclaimer
// at work is waited for, briefly and boundedly, because it either frees the
// name or names the winner.
func lockOwner(p ownership.Paths, probe Probe, me self, e env) (platform.Lease, error) {
	data := (&ownership.OwnerLock{PID: me.pid, Incarnation: me.incarnation, CreatedAt: e.now().UnixMilli()}).Marshal()
	deadline := time.Now().Add(e.reclaimWait)
	backoff := time.Millisecond
	for {
		lease, err := platform.CreateExclusive(p.Lock, data)
		if err == nil {
			return lease, nil
		}
		if !errors.Is(err, platform.ErrExist) {
			return platform.Lease{}, fmt.Errorf("owner lock: %w", err)
		}
		err = reclaim(p, probe, me, e)
		switch {
		case err == nil, errors.Is(err, errLockGone):
			// The name is free (or freed): create again. Each round needs
			// a stale or vanished lock, so this cannot spin on a live one.
			if time.Now().After(deadline) {
				return platform.Lease{}, fmt.Errorf("owner lock: %s keeps changing hands", p.Lock)
			}
			continue
		case (errors.Is(err, ownership.ErrReclaimBusy) || errors.Is(err, errLockInFlux)) && time.Now().Add(backoff).Before(deadline):
			// A reclaim, or a lock's creation, takes a few fsyncs; poll,
			// not spin, until it ends.
			time.Sleep(backoff)
			backoff = min(2*backoff, maxReclaimPoll)
			continue
		}
		var held *ownership.HeldError
		if errors.As(err, &held) && held.Source == ownership.LockFile {
			// The lock names only a PID: say which owner, if the record
			// shows it is the same process.
			if rec := ReadState(p); rec.State != nil && rec.State.PID == held.PID && rec.State.Incarnation == held.Incarnation {
				held.OwnerID = rec.State.OwnerID
			}
		}
		return platform.Lease{}, err
	}
}

// stillFree re-checks, with our lock linked, that nobody published meanwhile
// and that the lock is still ours. A record that changed since it was
// judged is judged again.
func stillFree(p ownership.Paths, before ownership.Record, lease platform.Lease, probe Probe) error {
	now := ReadState(p)
	if now.Present != before.Present || !bytes.Equal(now.Raw, before.Raw) || (now.Malformed == nil) != (before.Malformed == nil) {
		if err := successorAllowed(p, now, probe); err != nil {
			return err
		}
	}
	if err := platform.VerifyLease(p.Lock, lease); err != nil {
		if h, rerr := readLock(p.Lock); rerr == nil {
			if herr := judgeLock(h, ownership.LockFile, probe, lockClaim(p)); herr != nil {
				return herr
			}
		}
		return &ownership.OwnershipLostError{What: ownership.LockFile, Err: err}
	}
	return nil
}

// State returns a copy of the record this owner last published.
func (o *Owner) State() ownership.State {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.state.Clone()
}

// Paths returns the paths of the daemon this owner holds.
func (o *Owner) Paths() ownership.Paths { return o.paths }
