package chat

import "sync"

// healthReporter passes on a transport's health only when it changes, so every
// report is worth an immediate heartbeat.
type healthReporter struct {
	mu     sync.Mutex
	last   *Health
	report func(Health)
}

func (h *healthReporter) set(v Health) {
	v.Err = redactURLs(v.Err)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last != nil && *h.last == v {
		return
	}
	h.last = &v
	h.report(v)
}
