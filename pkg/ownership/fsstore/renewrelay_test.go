package fsstore

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// A heartbeat carries the relay's health into the record; a heartbeat
// without one drops it; one the parser would refuse writes nothing, so the
// owner never makes its own record malformed.
func TestRenewPublishesTheRelay(t *testing.T) {
	p := newPaths(t)
	o, err := acquire(p, request, SystemProbe(), defaultEnv())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) })
	rs := &ownership.RelayState{Pending: 2, OldestPendingAt: 1764450001000, Failed: 1, Posted: 5, PostSeconds: 0.25, RateLimitWaits: 1, Filtered: 3,
		Blocked: &ownership.RelayBlock{Reason: "RelayBlocked", Message: strings.Repeat("é", 2000)}}
	if err := o.Renew(ownership.Heartbeat{TransportHealthy: true, Relay: rs}); err != nil {
		t.Fatal(err)
	}
	rec := ReadState(p)
	if rec.Malformed != nil || rec.State.Relay == nil {
		t.Fatalf("record after a heartbeat with a relay: %+v", rec)
	}
	got := rec.State.Relay
	if n := len(got.Blocked.Message); n > ownership.MaxDetail || n == 0 || got.Pending != 2 || got.Posted != 5 || got.PostSeconds != 0.25 || got.Filtered != 3 {
		t.Fatalf("relay %+v (message of %d bytes)", got, n)
	}
	if len(rs.Blocked.Message) != 4000 {
		t.Fatal("Renew changed the caller's relay state")
	}
	if !reflect.DeepEqual(o.State().Relay, got) {
		t.Fatalf("State().Relay = %+v, record %+v", o.State().Relay, got)
	}

	for _, bad := range []*ownership.RelayState{
		{Pending: -1},
		{Blocked: &ownership.RelayBlock{Reason: "SomethingElse", Message: "m"}},
		{PostSeconds: -1},
	} {
		before, _ := os.ReadFile(p.State)
		err := o.Renew(ownership.Heartbeat{TransportHealthy: true, Relay: bad})
		after, _ := os.ReadFile(p.State)
		if err == nil || !bytes.Equal(before, after) {
			t.Fatalf("Renew with %+v: %v; record changed: %v", bad, err, !bytes.Equal(before, after))
		}
	}
	// The refusals were no loss: the next good heartbeat is written.
	if err := o.Renew(ownership.Heartbeat{TransportHealthy: true}); err != nil {
		t.Fatal(err)
	}
	if st := ReadState(p).State; st.Relay != nil {
		t.Fatalf("a heartbeat without a relay kept %+v", st.Relay)
	}
}
