package doctor

import (
	"fmt"
	"net/http"
	"time"
)

// MaxSkew is the clock difference doctor accepts. After a crash the relay
// looks a post up in the service's recent history by when it was
// attempted, and the services' own timestamps are what it compares with:
// a clock off by more than this may search the wrong span.
const MaxSkew = 30 * time.Second

// CheckClock compares the Date header of an answer the service sent
// between sent and received with this machine's clock. Date has whole
// seconds, so the request's span and one second are allowed on top of
// MaxSkew before the clock is blamed.
func CheckClock(service, date string, sent, received time.Time) Line {
	const check = "clock"
	if date == "" {
		return Fail(check, service+" sent no Date header to compare the clock with; run doctor again")
	}
	at, err := http.ParseTime(date)
	if err != nil {
		return Fail(check, fmt.Sprintf("%s sent a Date header that does not parse (%q); run doctor again", service, date))
	}
	skew := Skew(at, sent, received)
	if skew.Abs() > MaxSkew {
		return Fail(check, fmt.Sprintf("this machine's clock is %s off %s's; set it by network time (on Linux: timedatectl set-ntp true)", skew.Round(time.Second).Abs(), service))
	}
	return Pass(check, fmt.Sprintf("within %s of %s's", MaxSkew, service))
}

// Skew is how far this machine's clock is from the service's: zero when
// the service's time at (to the second) falls in [sent-1s, received],
// else the distance to that span, positive when this machine is ahead.
func Skew(at, sent, received time.Time) time.Duration {
	switch {
	case at.Before(sent.Add(-time.Second)):
		return sent.Add(-time.Second).Sub(at)
	case at.After(received):
		return received.Sub(at)
	}
	return 0
}
