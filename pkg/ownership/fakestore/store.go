package fakestore

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// Store is ownership.Store over a World.
type Store struct{ w *World }

var _ ownership.Store = (*Store)(nil)

// Observe reads name's record and the facts about the process it names,
// in one look.
func (s *Store) Observe(name string) ownership.Observation {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	rec := w.record(name)
	f := ownership.Facts{Now: w.now}
	if rec.State != nil && rec.Malformed == nil {
		f.Process = w.processFacts(name, rec.State)
		f.Boot = w.boot
	}
	return ownership.Observation{Record: rec, Facts: f}
}

// Prepare makes name's place; it is idempotent.
func (s *Store) Prepare(name string) error {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	s.w.slot(name).prepared = true
	return nil
}

// SpawnBlocked looks first to who holds the name, which outlives its record
// (fsstore's kernel-held name lock), then to the lock.
func (s *Store) SpawnBlocked(name string) error {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if h := w.holderOf(name); h != nil {
		return &ownership.HeldError{PID: h.pid, Source: ownership.NameLockFile}
	}
	if sl := w.names[name]; sl != nil && sl.badLock {
		return &ownership.MalformedError{Path: name + "/" + ownership.LockFile, Err: errNotARecord}
	}
	return nil
}

// Reference holds the process st names while it has st's incarnation.
func (s *Store) Reference(st ownership.State) (ownership.OwnerRef, error) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.procs[st.PID]
	switch {
	case p == nil || p.exited:
		return nil, fmt.Errorf("owner %s (pid %d): open process %d: %w", st.OwnerID, st.PID, st.PID, platform.ErrProcessGone)
	case p.incarnation != st.Incarnation:
		return nil, fmt.Errorf("owner %s (pid %d): open process %d: %w", st.OwnerID, st.PID, st.PID,
			&platform.IncarnationMismatchError{PID: st.PID, Want: st.Incarnation, Got: p.incarnation})
	}
	return &reference{p: p, closing: make(chan struct{})}, nil
}

// reference is an OwnerRef to a fake process: like a pidfd it names that
// process, never its PID's next one.
type reference struct {
	p       *Process
	once    sync.Once
	closing chan struct{}
}

func (r *reference) Wait(ctx context.Context) error {
	select {
	case <-r.p.done:
		return nil
	default:
	}
	select {
	case <-r.p.done:
		return nil
	case <-r.closing:
		return fmt.Errorf("wait for pid %d: %w", r.p.pid, os.ErrClosed)
	case <-ctx.Done():
		return fmt.Errorf("wait for pid %d: %w", r.p.pid, ctx.Err())
	}
}

func (r *reference) Exited() (bool, error) {
	select {
	case <-r.closing:
		return false, fmt.Errorf("pid %d: %w", r.p.pid, os.ErrClosed)
	case <-r.p.done:
		return true, nil
	default:
		return false, nil
	}
}

func (r *reference) Close() error {
	err := fmt.Errorf("close pid %d: %w", r.p.pid, os.ErrClosed)
	r.once.Do(func() {
		close(r.closing)
		err = nil
	})
	return err
}

// LockPasses takes the world's pass lock, waiting up to ctx's deadline.
// A free lock is taken even with ctx already done, as fsstore tries once
// before it looks at the deadline.
func (s *Store) LockPasses(ctx context.Context) (func(), error) {
	select {
	case s.w.passes <- struct{}{}:
		return s.passReleaser(), nil
	default:
	}
	select {
	case s.w.passes <- struct{}{}:
		return s.passReleaser(), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w (fakestore)", ownership.ErrPassesLocked)
	}
}

func (s *Store) passReleaser() func() {
	var once sync.Once
	return func() { once.Do(func() { <-s.w.passes }) }
}

func (s *Store) Boot() ownership.BootFacts {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return s.w.boot
}

// Watch pokes on every change to name's record or control request.
func (s *Store) Watch(name string) (<-chan struct{}, func(), error) {
	ch, cancel := s.w.watch(name)
	return ch, cancel, nil
}

// Close: the fake keeps nothing open.
func (s *Store) Close() error { return nil }

func (s *Store) Now() time.Time {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return s.w.now
}

// Machine is "": the fake, like one machine's files, holds no elections.
func (s *Store) Machine() string { return "" }

// Leader is "": without elections every name is led here.
func (s *Store) Leader(string) (string, error) { return "", nil }

// ReleaseReaped implements ownership.Store: a name's locks die with its
// process, so a reaped owner holds nothing.
func (s *Store) ReleaseReaped(string, string, int) error { return nil }

// LeaseTTL is 0: the fake's holds end with their owners.
func (s *Store) LeaseTTL() time.Duration { return 0 }
