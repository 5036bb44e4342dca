package reconcile

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// RelayStatus is a daemon's outbox as the relay publishes it in state.json
// (DESIGN 5: relay.pending, relay.failed, relay.lastPostAt). Nothing fills
// it yet: the relay that will is a later change. Until then it stays nil,
// and screens show that as unknown, not as an empty outbox.
type RelayStatus struct {
	// Pending counts the messages in outbox/ not yet posted.
	Pending int64 `json:"pending"`
	// Failed counts the messages moved to failed/.
	Failed int64 `json:"failed"`
	// LastPostAt is when the service last confirmed a post; nil: never.
	LastPostAt *metav1.Time `json:"lastPostAt,omitempty"`
}
