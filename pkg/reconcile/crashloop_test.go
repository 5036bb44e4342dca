package reconcile

import (
	"testing"
	"time"
)

func TestCrashLoopBackoff(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	var c crashLoop
	if next := c.exited(now); !next.Equal(now) {
		t.Fatalf("first exit held off until %v, want at once", next)
	}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		if got := c.exited(now).Sub(now); got != want {
			t.Errorf("exit %d: back off %v, want %v", i+2, got, want)
		}
	}
	for range 20 {
		c.exited(now)
	}
	if got := c.wait(now); got != crashBackoffMax {
		t.Errorf("back off %v, want the %v cap", got, crashBackoffMax)
	}

	// Healthy for ten minutes forgives everything: the next exit respawns at once.
	c.healthy(now)
	c.healthy(now.Add(crashResetAfter))
	later := now.Add(crashResetAfter + time.Second)
	if next := c.exited(later); !next.Equal(later) {
		t.Errorf("exit after ten healthy minutes held off until %v", next)
	}
	// An exit within 10 s of becoming healthy is a crash in a row.
	c.healthy(later)
	if got := c.exited(later.Add(5 * time.Second)).Sub(later.Add(5 * time.Second)); got != time.Second {
		t.Errorf("exit 5s after healthy: back off %v, want 1s", got)
	}
	// One after a minute of health starts a new streak: respawned at once.
	again := later.Add(time.Hour)
	c.healthy(again)
	if next := c.exited(again.Add(time.Minute)); !next.Equal(again.Add(time.Minute)) {
		t.Errorf("exit a minute after healthy held off until %v", next)
	}
}

// Ten healthy minutes forgive a streak even when the next exit comes from
// a replacement that never got healthy (a restart, a generation roll): it
// is the first crash of a new streak, respawned at once. Without the reset
// the old streak would go on, backing off.
func TestCrashLoopResetAfterTenHealthyMinutes(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	var c crashLoop
	for range 6 {
		c.exited(now)
	}
	c.healthy(now)
	c.healthy(now.Add(crashResetAfter))
	c.newOwner()
	later := now.Add(crashResetAfter + time.Minute)
	if next := c.exited(later); !next.Equal(later) {
		t.Errorf("a replacement's first crash after ten healthy minutes is held off until %v, want at once", next)
	}
	// Nine minutes are not enough: the streak goes on.
	var d crashLoop
	for range 6 {
		d.exited(now)
	}
	d.healthy(now)
	d.healthy(now.Add(9 * time.Minute))
	d.newOwner()
	if got := d.exited(later).Sub(later); got <= 0 {
		t.Errorf("after nine healthy minutes the streak was forgiven (back off %v)", got)
	}
}
