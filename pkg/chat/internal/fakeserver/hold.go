package fakeserver

import (
	"context"
	"sync"
)

// Hold keeps the requests that reach it waiting, before anything is
// stored, until Release: how a test kills a client in mid-request.
type Hold struct {
	arrived, released chan struct{}
	arrive, release   sync.Once
}

// NewHold returns a hold no request has reached yet.
func NewHold() *Hold {
	return &Hold{arrived: make(chan struct{}), released: make(chan struct{})}
}

// Arrived is closed once a request reached the hold.
func (h *Hold) Arrived() <-chan struct{} { return h.arrived }

// Release lets the held requests go on; it is idempotent.
func (h *Hold) Release() { h.release.Do(func() { close(h.released) }) }

// WaitAt holds a request at h until Release. It reports false, and the
// request is to be dropped unanswered, when the server closed first or ctx
// ended: a fake that drops a request whose client left passes its context.
func (s *Server) WaitAt(ctx context.Context, h *Hold) bool {
	s.count(&s.held, 1)
	defer s.count(&s.held, -1)
	h.arrive.Do(func() { close(h.arrived) })
	select {
	case <-h.released:
		return ctx.Err() == nil
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}
