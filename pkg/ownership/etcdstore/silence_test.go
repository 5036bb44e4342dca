package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
)

// Only a request the cluster left unanswered is its silence; one it
// answered with a refusal is not, whatever the refusal says.
func TestSilentTellsSilenceFromAnAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the request's bound passed", context.DeadlineExceeded, true},
		{"the bound, wrapped", fmt.Errorf("get: %w", context.DeadlineExceeded), true},
		{"ended before it was sent", context.Canceled, true},
		{"no connection to any endpoint", status.Error(codes.Unavailable, "connection refused"), true},
		{"the server's own deadline", status.Error(codes.DeadlineExceeded, "deadline"), true},
		{"a member without a leader", rpctypes.ErrGRPCNoLeader, true},
		{"a bad password", rpctypes.ErrGRPCAuthFailed, false},
		{"no permission", rpctypes.ErrGRPCPermissionDenied, false},
		{"over the request size limit", rpctypes.ErrGRPCRequestTooLarge, false},
		{"a compacted revision", rpctypes.ErrGRPCCompacted, false},
		{"anything else", errors.New("boom"), false},
	} {
		if got := silent(tc.err); got != tc.want {
			t.Errorf("%s (%v): silent = %t, want %t", tc.name, tc.err, got, tc.want)
		}
	}
}

// A silence is remembered for silenceMemo, and then asked about again.
func TestSilenceIsRememberedForTheMemoOnly(t *testing.T) {
	var q silence
	t0 := time.Unix(1000, 0)
	if err := q.recent(t0); err != nil {
		t.Fatalf("nothing found yet, recent = %v", err)
	}
	found := errors.New("etcd did not answer within 5s")
	q.note(t0, found)
	for _, tc := range []struct {
		at   time.Duration
		want error
	}{
		{0, found},
		{silenceMemo - time.Millisecond, found},
		{silenceMemo, nil},
		{-time.Second, nil}, // a clock stepped back proves nothing
	} {
		if got := q.recent(t0.Add(tc.at)); got != tc.want {
			t.Errorf("%s after the silence: recent = %v, want %v", tc.at, got, tc.want)
		}
	}
}

// A cluster slow to answer, but answering within the request timeout, is
// not silent, however short the lease TTL: the probe waits for it as long
// as any request would, and notes no silence that would fail the requests
// after it. One that does not answer at all still is silent, within that
// bound.
func TestProbeTakesASlowClusterForALiveOne(t *testing.T) {
	c := etcdtest.Start(t, etcdtest.Options{})
	p := c.NewProxy(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{p.Endpoint()}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	const timeout, slow = 3 * time.Second, 1500 * time.Millisecond // slower than half the TTL
	s, err := New(Options{Client: cli, AgentDir: t.TempDir(), Machine: "m1", LeaseTTL: MinLeaseTTL, RequestTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if s.silentNow(s.probeBound()) {
		t.Fatal("the cluster is silent before it was slowed")
	}

	p.Delay(slow)
	asked := time.Now()
	if s.silentNow(s.probeBound()) {
		t.Fatalf("a cluster answering in %s, within the %s request timeout, taken for silent (lease TTL %s, probe bound %s)", slow, timeout, MinLeaseTTL, s.probeBound())
	}
	if took := time.Since(asked); took < slow {
		t.Fatalf("the probe answered in %s: the proxy did not slow the cluster by %s", took, slow)
	}
	if err := s.quiet.recent(time.Now()); err != nil {
		t.Fatalf("a slow answer noted as a silence: %v", err)
	}

	p.Cut()
	asked = time.Now()
	if !s.silentNow(s.probeBound()) {
		t.Fatal("a cluster that does not answer is not silent")
	}
	if took := time.Since(asked); took > timeout+2*time.Second {
		t.Errorf("the probe found the silence after %s, over its %s bound", took, timeout)
	}
}

// The memo is renewed only by a silence found anew: a request ended by the
// memo says what was found and notes nothing (or the memo would outlive
// the silence while requests keep coming), and the first request after
// the memo asks the cluster again, and notes what it finds.
func TestSilenceMemoIsRenewedOnlyByANewSilence(t *testing.T) {
	// Nothing listens on this endpoint: every request is left unanswered.
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"http://127.0.0.1:1"}, DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	const timeout = 200 * time.Millisecond
	s, err := New(Options{Client: cli, AgentDir: t.TempDir(), Machine: "m1", LeaseTTL: MinLeaseTTL, RequestTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	found := errors.New("etcd did not answer within 5s (endpoints http://etcd-1:2379)")
	at := time.Now()
	s.quiet.note(at, found)

	ctx, cancel := s.reqCtx()
	_, gerr := cli.Get(ctx, "k")
	err = s.unreachable(ctx, "reading k", gerr)
	cancel()
	if !errors.Is(err, found) {
		t.Fatalf("a request within the memo: %v, want the silence found, %v", err, found)
	}
	s.quiet.mu.Lock()
	renewed := !s.quiet.at.Equal(at)
	s.quiet.mu.Unlock()
	if renewed {
		t.Fatal("a request the memo ended renewed the memo")
	}

	s.quiet.note(time.Now().Add(-silenceMemo), found) // the memo has passed
	ctx, cancel = s.reqCtx()
	asked := time.Now()
	_, gerr = cli.Get(ctx, "k")
	err = s.unreachable(ctx, "reading k", gerr)
	cancel()
	if took := time.Since(asked); took < timeout/2 {
		t.Fatalf("the first request after the memo failed after %s, without asking the cluster: %v", took, err)
	}
	again := s.quiet.recent(time.Now())
	if again == nil || errors.Is(err, found) || !strings.Contains(again.Error(), "did not answer within 200ms") {
		t.Fatalf("after the memo, a request left unanswered noted %v (its error %v); want the new silence, within 200ms", again, err)
	}
}

// A watch of a cluster that does not answer fails within the request
// timeout: clientv3's Watch call blocks while its stream cannot connect,
// and the loop asks for a watch under the lock its status reads take
// (Loop.follow), so a watch without that bound froze the loop's status
// and passes on a machine cut off from the cluster.
func TestWatchOfASilentClusterEndsWithinTheRequestTimeout(t *testing.T) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"http://127.0.0.1:1"}, DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	const timeout = 300 * time.Millisecond
	s, err := New(Options{Client: cli, AgentDir: t.TempDir(), Machine: "m1", LeaseTTL: MinLeaseTTL, RequestTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	done := make(chan error, 1)
	asked := time.Now()
	go func() {
		_, cancel, err := s.Watch("bot")
		if err == nil {
			cancel()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, ownership.ErrStoreUnreachable) || !strings.Contains(err.Error(), "did not answer within 300ms") {
			t.Fatalf("a watch of a cluster that does not answer: %v; want the store unreachable, within 300ms", err)
		}
		t.Logf("failed after %s: %v", time.Since(asked).Round(time.Millisecond), err)
	case <-time.After(10 * timeout):
		t.Fatalf("a watch of a cluster that does not answer has not returned after %s (request timeout %s)", 10*timeout, timeout)
	}
	// Asked again at once, the silence found is remembered, as for every
	// request: a loop following many names waits one bound, not one each.
	asked = time.Now()
	if _, _, err := s.Watch("sbot"); err == nil || !errors.Is(err, ownership.ErrStoreUnreachable) {
		t.Fatalf("a second watch within the memo: %v; want the store unreachable", err)
	}
	if took := time.Since(asked); took > timeout/2 {
		t.Errorf("a second watch within the memo failed after %s, not at once", took)
	}
}
