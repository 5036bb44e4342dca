package telegram

import (
	"context"
	"testing"
	"time"
)

func TestWindowWait(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(d ...time.Duration) []time.Time {
		var out []time.Time
		for _, x := range d {
			out = append(out, t0.Add(x))
		}
		return out
	}
	s := time.Second
	cases := []struct {
		name     string
		done     []time.Time
		inflight int
		n        int
		span     time.Duration
		now      time.Duration
		want     time.Duration
		wantOK   bool
	}{
		{"empty", nil, 0, 3, 3 * s, 0, 0, true},
		{"room left", at(0, 0), 0, 3, 3 * s, 0, 0, true},
		{"full of finished", at(0, 0, 0), 0, 3, 3 * s, s, 2 * s, true},
		{"the oldest leaves first", at(0, s, 2*s), 0, 3, 3 * s, 2 * s, s, true},
		{"in flight counts", at(0, s), 1, 3, 3 * s, 2 * s, s, true},
		{"in flight counts twice", at(0, s), 2, 3, 3 * s, 2 * s, 2 * s, true},
		{"all in flight: only an answer makes room", nil, 3, 3, 3 * s, 0, 0, false},
		{"finished long ago", at(0, 0, 0), 0, 3, 3 * s, 10 * s, 0, true},
		{"a span after is outside (half-open)", at(0, s, 2*s), 0, 3, 3 * s, 3 * s, 0, true},
		{"the minute, 20 a minute", at(0, s, 2*s, 3*s, 4*s, 5*s, 6*s, 7*s, 8*s, 9*s, 10*s, 11*s, 12*s, 13*s, 14*s, 15*s, 16*s, 17*s, 18*s, 19*s), 0, 20, time.Minute, 20 * s, 40 * s, true},
	}
	for _, c := range cases {
		got, ok := windowWait(c.done, c.inflight, c.n, c.span, t0.Add(c.now))
		if got != c.want || ok != c.wantOK {
			t.Errorf("%s: wait %v %v, want %v %v", c.name, got, ok, c.want, c.wantOK)
		}
	}
}

func TestBudgetOf(t *testing.T) {
	cases := []struct {
		perMinute int
		burstSpan time.Duration
	}{
		{0, 3 * time.Second}, // the default, 20
		{20, 3 * time.Second},
		{1, 3 * time.Second},
		{60, time.Second},
		{1200, 50 * time.Millisecond},
	}
	for _, c := range cases {
		b := budgetOf(c.perMinute)
		wantN := c.perMinute
		if wantN == 0 {
			wantN = 20
		}
		if b[0].n != wantN || b[0].span != time.Minute || b[1].n != paceBurst || b[1].span != c.burstSpan {
			t.Errorf("budgetOf(%d) = %+v, want %d a minute and %d in %v", c.perMinute, b, wantN, paceBurst, c.burstSpan)
		}
	}
}

// A burst is let through up to the window's n, and the next request
// waits for the oldest answer to leave the span; a wait ends with its
// context.
func TestPacerWaits(t *testing.T) {
	p := &pacer{windows: []window{{n: 2, span: time.Hour}}, changed: make(chan struct{})}
	for range 2 {
		release, err := p.acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		release()
		release() // once only
	}
	if w := p.windows[0]; w.inflight != 0 || len(w.done) != 2 {
		t.Fatalf("window after two: %+v", w)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.acquire(ctx); err != context.DeadlineExceeded {
		t.Fatalf("a third within the hour: %v, want the context's end", err)
	}
	if w := p.windows[0]; w.inflight != 0 {
		t.Fatalf("a wait that ended counted a request: %+v", w)
	}
}

// A request waiting for room in flight goes once an answer comes back.
func TestPacerWakesOnRelease(t *testing.T) {
	p := &pacer{windows: []window{{n: 1, span: 0}}, changed: make(chan struct{})}
	release, err := p.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		r, err := p.acquire(context.Background())
		if err == nil {
			r()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("went while the window was full: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

func TestBudgetTime(t *testing.T) {
	cases := []struct {
		n, perMinute int
		want         time.Duration
	}{
		{1, 20, 0},
		{3, 20, 0},                 // the burst
		{4, 20, 3 * time.Second},   // the burst's span: 3 in any 3 s
		{20, 20, 18 * time.Second}, // a minute's 20 at 1 a second
		{21, 20, time.Minute},      // the 21st waits for the first to leave the minute
		{41, 20, 2 * time.Minute},  // and the 41st for the 21st
		{600, 600, 19900 * time.Millisecond},
		{1000, 600, time.Minute + 13300*time.Millisecond}, // 600 in 20 s, the minute, 400 more
	}
	for _, c := range cases {
		if got := BudgetTime(c.n, c.perMinute); got != c.want {
			t.Errorf("BudgetTime(%d, %d) = %v, want %v", c.n, c.perMinute, got, c.want)
		}
	}
}
