package faketelegram

import (
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	cases := []struct {
		name  string
		limit Limit
		posts []time.Duration // posts made, each one that fits is spent
		at    time.Duration
		want  time.Duration
	}{
		{"none", Limit{}, []time.Duration{0, 0, 0}, 0, 0},
		{"burst fits", Limit{Burst: 3, Every: time.Second}, []time.Duration{0, 0}, 0, 0},
		{"burst spent", Limit{Burst: 3, Every: time.Second}, []time.Duration{0, 0, 0}, 0, time.Second},
		{"earns back", Limit{Burst: 3, Every: time.Second}, []time.Duration{0, 0, 0}, 400 * time.Millisecond, 600 * time.Millisecond},
		{"pace", Limit{Burst: 1, Every: time.Second}, []time.Duration{0, time.Second, 2 * time.Second}, 2500 * time.Millisecond, 500 * time.Millisecond},
		{"window full", Limit{GroupMax: 2, GroupWindow: time.Minute}, []time.Duration{0, 10 * time.Second}, 30 * time.Second, 30 * time.Second},
		{"window slides", Limit{GroupMax: 2, GroupWindow: time.Minute}, []time.Duration{0, 10 * time.Second}, time.Minute, 0},
	}
	for _, c := range cases {
		b := budget{limit: c.limit}
		for _, p := range c.posts {
			if b.wait(at(p)) == 0 {
				b.spend(at(p))
			}
		}
		if got := b.wait(at(c.at)); got != c.want {
			t.Errorf("%s: wait %v, want %v", c.name, got, c.want)
		}
	}
}

func TestScaledLimit(t *testing.T) {
	if got := ScaledLimit(20); got != TelegramLimit {
		t.Errorf("ScaledLimit(20) = %+v, want the documented %+v", got, TelegramLimit)
	}
	if got := ScaledLimit(1200); got.Every != time.Second/60 || got.GroupMax != 1200 || got.Burst != 3 {
		t.Errorf("ScaledLimit(1200) = %+v", got)
	}
}
