package doctor

import (
	"fmt"
	"net/http"
	"time"
)

// MaxSkew is the clock difference doctor accepts. Nothing breaks at once
// beyond it (the relay's lookups after a crash allow this machine an hour
// ahead of the service), but the times this machine writes (events,
// the inbox's landing times, sent/) are read beside the service's, and a
// clock this far off is not kept by network time, so it drifts on:
// doctor says so while the difference is small.
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
