package doctor

import (
	"net/http"
	"sync"
	"time"
)

// Timed is a RoundTripper that keeps, of the last answer through it, the
// Date header and when its request went and its answer came: what
// CheckClock needs, from requests the checks make anyway.
type Timed struct {
	Next http.RoundTripper // nil: http.DefaultTransport

	mu             sync.Mutex
	date           string
	sent, received time.Time
}

// RoundTrip implements http.RoundTripper.
func (t *Timed) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.Next
	if next == nil {
		next = http.DefaultTransport
	}
	sent := time.Now()
	resp, err := next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	received := time.Now()
	if d := resp.Header.Get("Date"); d != "" {
		t.mu.Lock()
		t.date, t.sent, t.received = d, sent, received
		t.mu.Unlock()
	}
	return resp, nil
}

// Clock is CheckClock on the last answer that carried a Date; nothing
// when no answer came, since a service that did not answer is already
// a failed line and the clock is not known to be wrong.
func (t *Timed) Clock(service string) []Line {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.date == "" {
		return nil
	}
	return []Line{CheckClock(service, t.date, t.sent, t.received)}
}
