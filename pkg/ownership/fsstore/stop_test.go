package fsstore

import (
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// The ladder's message names each step as sent or not sent.
func TestLadderSaysWhatWasSent(t *testing.T) {
	var l ladder
	l.add(15, time.Second, nil)
	l.add(9, time.Second, &ownership.OwnerChangedError{Field: "ownerId", Want: "a", Got: "b"})
	got := l.String()
	if !strings.Contains(got, "SIGTERM (waited 1s)") || !strings.Contains(got, "SIGKILL not sent") {
		t.Fatalf("ladder = %q", got)
	}
}
