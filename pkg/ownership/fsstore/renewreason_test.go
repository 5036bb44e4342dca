package fsstore

import (
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// A transport's named cause is written beside its error only, and logins
// the record could not hold are left out: a record its own reconciler
// would refuse as malformed is never written.
func TestRenewReasonAndLogins(t *testing.T) {
	p := newPaths(t)
	o, err := acquire(p, request, SystemProbe(), defaultEnv())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) })
	good := &ownership.Logins{Used: 12, Limit: 1000, ResetAt: 1795990000000}
	for _, c := range []struct {
		name       string
		hb         ownership.Heartbeat
		wantReason string
		wantLogins *ownership.Logins
	}{
		{"a named cause", ownership.Heartbeat{TransportError: "2 connections", TransportReason: "TokenInUse", Logins: good}, "TokenInUse", good},
		{"a cause without an error", ownership.Heartbeat{TransportReason: "TokenInUse"}, "", nil},
		{"healthy: no cause", ownership.Heartbeat{TransportHealthy: true, TransportError: "x", TransportReason: "TokenInUse"}, "", nil},
		{"not a reason", ownership.Heartbeat{TransportError: "x", TransportReason: "token in use"}, "", nil},
		{"logins over their limit", ownership.Heartbeat{TransportHealthy: true, Logins: &ownership.Logins{Used: 1001, Limit: 1000}}, "", nil},
		{"negative logins", ownership.Heartbeat{TransportHealthy: true, Logins: &ownership.Logins{Used: -1, Limit: 1000}}, "", nil},
	} {
		if err := o.Renew(c.hb); err != nil {
			t.Fatalf("%s: Renew: %v", c.name, err)
		}
		r := ReadState(p)
		if r.Malformed != nil || r.State == nil {
			t.Fatalf("%s: the record reads as %v", c.name, r.Malformed)
		}
		st := r.State
		if st.TransportReason != c.wantReason || (st.Logins == nil) != (c.wantLogins == nil) || st.Logins != nil && *st.Logins != *c.wantLogins {
			t.Fatalf("%s: reason %q logins %+v, want %q %+v", c.name, st.TransportReason, st.Logins, c.wantReason, c.wantLogins)
		}
	}
}
