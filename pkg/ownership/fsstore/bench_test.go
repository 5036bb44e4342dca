package fsstore

import (
	"gjc.dev/reconciler/pkg/ownership"
	"os"
	"testing"
)

// BenchmarkClassifyHealthy is one observation of a healthy owner: read
// state.json (with the directory checks), ask the kernel whether the PID
// is alive, what its incarnation is and what its command line says, and
// classify.
func BenchmarkClassifyHealthy(b *testing.B) {
	c := startCanary(b)
	p := newPaths(b)
	s := stateOf(c.PID(), c.incarnation)
	writeState(b, p, s)
	probe := SystemProbe()
	b.ReportAllocs()
	for b.Loop() {
		c := classifyNow(ReadState(p), desired, probe)
		if c.Health != ownership.HealthHealthy {
			b.Fatalf("Classify = %+v", c)
		}
	}
}

// BenchmarkAcquireRelease is a daemon's start and exit: acquire (lock
// link, publish) and release (publish, exact unlink), each fsynced. The
// released record names this live process, which would keep the next
// Acquire out, so it is pruned as gc would.
func BenchmarkAcquireRelease(b *testing.B) {
	p := newPaths(b)
	b.ReportAllocs()
	for b.Loop() {
		o, err := Acquire(p, request)
		if err != nil {
			b.Fatal(err)
		}
		if err := o.Release(nil); err != nil {
			b.Fatal(err)
		}
		if err := os.Remove(p.State); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseState is the record parser alone.
func BenchmarkParseState(b *testing.B) {
	s := stateOf(4242, "linux:98231")
	data := s.Marshal()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ownership.ParseState(data); err != nil {
			b.Fatal(err)
		}
	}
}
