package reconcile

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
)

// LoginsStatus is a record's logins as status shows them.
type LoginsStatus struct {
	Used    int64        `json:"used"`
	Limit   int64        `json:"limit"`
	ResetAt *metav1.Time `json:"resetAt,omitempty"`
}

func loginsStatusOf(l *ownership.Logins) *LoginsStatus {
	if l == nil {
		return nil
	}
	t := metav1.NewTime(time.UnixMilli(l.ResetAt))
	return &LoginsStatus{Used: l.Used, Limit: l.Limit, ResetAt: &t}
}
