package inbound

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
)

// A click that comes after the ask's expiresAt, before the expiry loop
// got to it (its back-off after a failure, a suspended machine; here a
// clock the loop reads as not due yet), finds it expired: it never
// decides it.
func TestClickAfterExpiresAtFindsItExpired(t *testing.T) {
	r := newRig(t)
	expires := time.Now().Add(time.Minute).Truncate(time.Millisecond)
	in := New(Options{
		Bus: r.d, Service: r.svc, Sessions: fakeSessions{places: map[string]string{"T1": "s1"}},
		Authorized: []string{"alice"}, Log: testr.New(t), MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		Now: func() time.Time { return expires.Add(-time.Second) }, // the loop's view: not due
	})
	if err := in.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.in = in
	t.Cleanup(func() { _ = in.Stop(context.Background()) })
	r.posted(askMsg("01JLATE", expires), "R1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := in.Decide(ctx, Click{ID: "c", Place: "T1", Message: "R1", User: "alice", Name: "Alice",
		Data: bus.ChoiceData("01JLATE", 0), Time: expires.Add(time.Minute)}) // the service says: a minute after expiresAt
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind == Decided {
		t.Fatalf("a click a minute after expiresAt decided the ask: %+v", v)
	}
}
