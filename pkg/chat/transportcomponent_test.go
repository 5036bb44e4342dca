package chat

import "testing"

// Whatever provider reports it, a health error reaches state.json without
// a URL's query (a socket URL's may carry a connection ticket), and a
// report equal to the last one wakes no heartbeat.
func TestTransportHealthIsRedactedAndDeduped(t *testing.T) {
	m := newMailbox()
	m.put(Health{Err: "dial wss://wss-primary.slack.com/link/?ticket=SECRET: refused"})
	<-m.ready
	if got := m.take().Err; got != "dial wss://wss-primary.slack.com/link/: refused" {
		t.Errorf("health error %q, want the URL's query dropped", got)
	}
	m.put(Health{Err: "dial wss://wss-primary.slack.com/link/?ticket=OTHER: refused"})
	select {
	case <-m.ready:
		t.Error("a report equal to the last (once redacted) woke a heartbeat")
	default:
	}
	m.put(Health{Healthy: true})
	select {
	case <-m.ready:
	default:
		t.Error("a changed report woke no heartbeat")
	}
}
