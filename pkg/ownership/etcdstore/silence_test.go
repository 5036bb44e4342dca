package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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
