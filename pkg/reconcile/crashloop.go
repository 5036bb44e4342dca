package reconcile

import "time"

// Crash-loop timing of DESIGN section 6.
const (
	crashWindow      = 10 * time.Second // an exit this soon after healthy counts as a crash
	crashResetAfter  = 10 * time.Minute // this long healthy forgives past crashes while running
	crashBackoffBase = time.Second
	crashBackoffMax  = 5 * time.Minute
)

// crashLoop counts a daemon's unexpected exits in a row. The first is
// respawned at once (a daemon killed by an OOM or an operator should come back
// immediately); from the second, respawns back off 1 s, 2 s, 4 s ... 5 min.
type crashLoop struct {
	crashes      int
	healthySince time.Time // zero while not healthy
	notBefore    time.Time
}

// healthy notes that the owner is healthy now.
func (c *crashLoop) healthy(now time.Time) {
	if c.healthySince.IsZero() {
		c.healthySince = now
	}
	if now.Sub(c.healthySince) >= crashResetAfter {
		c.crashes = 0
	}
}

// exited records an unexpected exit and returns when the next spawn may happen.
func (c *crashLoop) exited(now time.Time) time.Time {
	// An exit before healthy, or within crashWindow of it, continues the
	// streak; one after a while of health starts a new one.
	if c.healthySince.IsZero() || now.Sub(c.healthySince) < crashWindow {
		c.crashes++
	} else {
		c.crashes = 1
	}
	c.healthySince = time.Time{}
	if c.crashes < 2 {
		c.notBefore = now
		return now
	}
	delay := crashBackoffBase << min(c.crashes-2, 20)
	c.notBefore = now.Add(min(delay, crashBackoffMax))
	return c.notBefore
}

// newOwner forgets the health of the previous owner: a replacement's exit is
// judged against its own.
func (c *crashLoop) newOwner() { c.healthySince = time.Time{} }

// wait is how long to hold off a spawn; zero when it may happen now.
func (c *crashLoop) wait(now time.Time) time.Duration {
	return max(c.notBefore.Sub(now), 0)
}
