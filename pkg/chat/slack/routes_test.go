package slack

import (
	"testing"
	"time"
)

func TestSlot(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := time.Second
	for _, tc := range []struct {
		name          string
		now, tat      time.Time
		interval      time.Duration
		burst         int
		wantAt, wantT time.Time
	}{
		{"quiet: at once", t0, time.Time{}, s, 4, t0, t0.Add(s)},
		{"inside the burst: at once", t0, t0.Add(3 * s), s, 4, t0, t0.Add(4 * s)},
		{"burst spent: the next interval", t0, t0.Add(4 * s), s, 4, t0.Add(s), t0.Add(5 * s)},
		{"no burst: one per interval", t0, t0.Add(s), s, 1, t0.Add(s), t0.Add(2 * s)},
		{"long quiet: no credit past the burst", t0.Add(time.Hour), t0, s, 2, t0.Add(time.Hour), t0.Add(time.Hour + s)},
		{"pacing off", t0, t0.Add(time.Hour), -1, 4, t0, t0.Add(time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, next := slot(tc.now, tc.tat, tc.interval, tc.burst)
			if !at.Equal(tc.wantAt) || !next.Equal(tc.wantT) {
				t.Fatalf("slot = %s, %s; want %s, %s", at.Sub(t0), next.Sub(t0), tc.wantAt.Sub(t0), tc.wantT.Sub(t0))
			}
		})
	}
}

// After a 429 the burst is spent: the calls held back go one per
// interval from the end of the wait, not all at once.
func TestLimitedSpendsTheBurst(t *testing.T) {
	r := newRoutes(time.Second, 4)
	r.limited(methodPostMessage, 10*time.Second)
	until := r.notBefore[methodPostMessage]
	at, next := slot(until, r.tat, r.interval, r.burst)
	if !at.Equal(until) {
		t.Fatalf("first call at %s, want the end of the wait", at.Sub(until))
	}
	if at2, _ := slot(until, next, r.interval, r.burst); !at2.Equal(until.Add(time.Second)) {
		t.Fatalf("second call at %s after the wait, want 1s", at2.Sub(until))
	}
}
