package fakestore_test

import (
	"context"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/ownership/ownershiptest"
)

// With its faults off, the fake is a store like any other.
func TestConformance(t *testing.T) {
	ownershiptest.Run(t, harness(nil))
}

// harness makes worlds with fault applied to each new world, and to each
// process started in it (nil: no faults).
func harness(fault func(w *fakestore.World, p *fakestore.Process)) ownershiptest.Harness {
	return ownershiptest.Harness{New: func(t *testing.T) ownershiptest.World {
		w := &world{w: fakestore.New(), fault: fault}
		if fault != nil {
			fault(w.w, nil)
		}
		return w
	}}
}

// world is ownershiptest.World over a fakestore.World.
type world struct {
	w     *fakestore.World
	fault func(w *fakestore.World, p *fakestore.Process)
}

func (w *world) Store() ownership.Store { return w.w.Store() }

// noClaims: the fake's owners are simulated processes, not claims.
const noClaims = "fakestore: its owners are simulated processes, which hold no ownership.Claim"

func (w *world) Acquirer(t *testing.T) ownership.Acquirer {
	t.Skip(noClaims)
	return nil
}

func (w *world) RequestStop(t *testing.T, _ string, _ ownership.State) { t.Skip(noClaims) }

func (w *world) started(t *testing.T, p *fakestore.Process) proc {
	t.Cleanup(p.Kill)
	if w.fault != nil {
		w.fault(w.w, p)
	}
	return proc{p}
}

func (w *world) StartOwner(t *testing.T, name string, want ownership.Desired, opts ownershiptest.OwnerOptions) ownershiptest.Owner {
	t.Helper()
	p, err := w.w.StartOwner(name, want, fakestore.OwnerOptions{Stubborn: opts.Stubborn})
	if err != nil {
		t.Fatal(err)
	}
	rec := w.w.Record(name)
	return owner{w.started(t, p), *rec.State}
}

func (w *world) StartBystander(t *testing.T) ownershiptest.Bystander {
	return bystander{w.started(t, w.w.StartProcess())}
}

func (w *world) WriteRecord(t *testing.T, name string, s ownership.State) { w.w.SetRecord(name, s) }
func (w *world) CorruptRecord(t *testing.T, name string)                  { w.w.CorruptRecord(name) }
func (w *world) CorruptLock(t *testing.T, name string)                    { w.w.CorruptLock(name) }
func (w *world) RemoveRecord(t *testing.T, name string)                   { w.w.RemoveRecord(name) }
func (w *world) HideLiveness(t *testing.T, p ownershiptest.Process)       { w.w.HideLiveness(p.PID()) }
func (w *world) Fingerprint(t *testing.T, name string) string             { return w.w.Fingerprint(name) }

// proc is ownershiptest.Process over a fake process.
type proc struct{ p *fakestore.Process }

func (p proc) PID() int            { return p.p.PID() }
func (p proc) Incarnation() string { return p.p.Incarnation() }

func (p proc) Wait(ctx context.Context) error {
	select {
	case <-p.p.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p proc) AssertUntouched(t *testing.T) {
	t.Helper()
	switch {
	case p.p.Exited():
		t.Fatalf("pid %d has exited: it was stopped or signalled (received %v, requests %v)", p.PID(), p.p.Received(), p.p.Requests())
	case len(p.p.Received()) > 0:
		t.Fatalf("pid %d received %v", p.PID(), p.p.Received())
	case len(p.p.Requests()) > 0:
		t.Fatalf("pid %d received the stop requests %+v", p.PID(), p.p.Requests())
	}
}

type owner struct {
	proc
	record ownership.State
}

func (o owner) Record() ownership.State { return o.record }
func (o owner) Release(t *testing.T)    { o.p.Release() }
func (o owner) Crash(t *testing.T)      { o.p.Kill() }

type bystander struct{ proc }

// StaleIncarnation is one the fake never gives a process.
func (bystander) StaleIncarnation() string { return "linux:1" }
