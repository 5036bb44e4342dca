package ladder

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// The ladder's message names each step as sent or not sent.
func TestLadderSaysWhatWasSent(t *testing.T) {
	var l steps
	l.add(15, time.Second, nil)
	l.add(9, time.Second, &ownership.OwnerChangedError{Field: "ownerId", Want: "a", Got: "b"})
	got := l.String()
	if !strings.Contains(got, "SIGTERM (waited 1s)") || !strings.Contains(got, "SIGKILL not sent") {
		t.Fatalf("ladder = %q", got)
	}
}

// Each way a climb ends: what it returns, what it sent, and whether the
// control request is cleared.
func TestClimb(t *testing.T) {
	refused := errors.New("refused")
	gone := platform.ErrProcessGone
	for _, tc := range []struct {
		name     string
		escalate bool
		send     map[syscall.Signal]error // nil: sent
		exitsOn  syscall.Signal           // 0: never exits
		want     error
		sent     []string
		cleared  bool
	}{
		{"exits on SIGTERM", true, nil, syscall.SIGTERM, nil, []string{"SIGTERM"}, true},
		{"exits on SIGKILL", true, nil, syscall.SIGKILL, nil, []string{"SIGTERM", "SIGKILL"}, true},
		{"outlives SIGTERM, no escalation", false, nil, 0, ownership.ErrDidNotExit, []string{"SIGTERM"}, true},
		{"outlives SIGKILL", true, nil, 0, ownership.ErrNotProvenDead, []string{"SIGTERM", "SIGKILL"}, true},
		{"nothing sent: the request stays", true, map[syscall.Signal]error{syscall.SIGTERM: refused, syscall.SIGKILL: refused}, 0, ownership.ErrNotProvenDead, nil, false},
		{"had exited before SIGTERM", true, map[syscall.Signal]error{syscall.SIGTERM: gone}, syscall.SIGTERM, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent, reported []string
			var last syscall.Signal
			cleared := false
			err := Climb(context.Background(), Stop{
				PID: 42,
				How: ownership.StopOptions{Escalate: tc.escalate, Progress: func(s ownership.StopStep) {
					reported = append(reported, s.Signal)
				}},
				Send: func(sig syscall.Signal) error {
					last = sig
					if err := tc.send[sig]; err != nil {
						return err
					}
					sent = append(sent, Name(sig))
					return nil
				},
				Exited: func(context.Context, time.Duration) bool { return tc.exitsOn != 0 && last == tc.exitsOn },
				Clear:  func() { cleared = true },
			})
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Climb = %v; want %v", err, tc.want)
			}
			if strings.Join(sent, ",") != strings.Join(tc.sent, ",") || cleared != tc.cleared || len(reported) == 0 {
				t.Fatalf("sent %v (want %v), cleared %v (want %v), reported %v", sent, tc.sent, cleared, tc.cleared, reported)
			}
			if !tc.cleared && !strings.Contains(err.Error(), "stays for the owner") {
				t.Fatalf("a request kept without saying so: %v", err)
			}
		})
	}
}
