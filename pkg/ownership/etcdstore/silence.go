package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"gjc.dev/reconciler/pkg/ownership"
)

// A request the cluster does not answer costs its whole bound, and a look
// at one name asks several (its record, who leads it, its owner's index).
// A loop's pass or a status that waited each one out in turn would answer
// only after their sum, long after the first had shown the cluster silent.
// So the store remembers a silence for silenceMemo: requests not tied to a
// lease made within it fail at once with what was found, and the first one
// after it asks the cluster again. A silence is never taken for a verdict
// about an owner: it is the cluster's, and its error says so.
const silenceMemo = time.Second

// silence is when a request last found the cluster silent, and what it
// found; the zero value has found nothing.
type silence struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

func (q *silence) note(now time.Time, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.at, q.err = now, err
}

// recent is the silence found within silenceMemo of now, or nil.
func (q *silence) recent(now time.Time) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err == nil || now.Sub(q.at) >= silenceMemo || now.Before(q.at) {
		return nil
	}
	return q.err
}

// silent reports whether err is the cluster's silence: no answer within
// the request's bound, or no connection to answer on. An error the
// cluster answered with (a refused request, a bad password, a value over
// its size limit) is not: it answered.
func silent(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return true
	}
	return false
}

// endpoints are the cluster's client URLs, for a message.
func (s *Store) endpoints() string { return strings.Join(s.cli.Endpoints(), ", ") }

// reqCtx bounds one request not tied to a lease by the store's timeout;
// when it passes, the request's error is that the cluster did not answer
// within it. Within silenceMemo of a silence the context has already
// ended, with that silence as its cause.
func (s *Store) reqCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeoutCause(s.ctx, s.timeout,
		fmt.Errorf("etcd did not answer within %s (endpoints %s)", s.timeout, s.endpoints()))
	if err := s.quiet.recent(time.Now()); err != nil {
		ended, end := context.WithCancelCause(ctx)
		end(&remembered{err})
		return ended, cancel
	}
	return ctx, cancel
}

// remembered is a silence found by an earlier request: it ended this one
// before it was sent, and is not noted again (or the memo would outlive
// the silence while requests keep coming).
type remembered struct{ err error }

func (r *remembered) Error() string { return r.err.Error() }
func (r *remembered) Unwrap() error { return r.err }

// unreachable reports a failed request made under ctx as the cluster's:
// silence (remembered, see silenceMemo) or an answer that refused it.
// Either way nothing about any owner is known, so both are
// UnreachableErrors; only the message tells them apart, and neither
// says anything of a record it never read.
func (s *Store) unreachable(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if !silent(err) {
		return &ownership.UnreachableError{Op: op, Err: fmt.Errorf("etcd refused it: %w", err)}
	}
	cause := context.Cause(ctx)
	var r *remembered
	switch {
	case ctx.Err() != nil && errors.As(cause, &r):
		return &ownership.UnreachableError{Op: op, Err: r.err}
	case ctx.Err() != nil && cause != nil && cause != ctx.Err():
		err = cause
	default:
		err = fmt.Errorf("etcd did not answer (endpoints %s): %w", s.endpoints(), err)
	}
	s.quiet.note(time.Now(), err)
	return &ownership.UnreachableError{Op: op, Err: err}
}
