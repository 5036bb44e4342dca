package reconcile

import (
	"context"
	"sync"
)

// nameLocks exclude, within one process, everything that acts on one name:
// the queue's worker for it and an operator's command served by the loop.
// The pass lock cannot: this process's users share one flock (sharedLock).
// A name's entry lives only while someone holds or waits for it.
type nameLocks struct {
	mu sync.Mutex
	m  map[string]*nameLock
}

type nameLock struct {
	sem   chan struct{} // one token: held while full
	users int           // holders and waiters, guarded by nameLocks.mu
}

// lock waits for name, or for ctx to be done; unlock lets the next one in.
func (n *nameLocks) lock(ctx context.Context, name string) (unlock func(), err error) {
	n.mu.Lock()
	if n.m == nil {
		n.m = map[string]*nameLock{}
	}
	e := n.m[name]
	if e == nil {
		e = &nameLock{sem: make(chan struct{}, 1)}
		n.m[name] = e
	}
	e.users++
	n.mu.Unlock()
	select {
	case e.sem <- struct{}{}:
		return func() {
			<-e.sem
			n.leave(name, e)
		}, nil
	case <-ctx.Done():
		n.leave(name, e)
		return nil, ctx.Err()
	}
}

func (n *nameLocks) leave(name string, e *nameLock) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if e.users--; e.users == 0 {
		delete(n.m, name)
	}
}

// users is how many hold or wait for name.
func (n *nameLocks) users(name string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if e := n.m[name]; e != nil {
		return e.users
	}
	return 0
}
