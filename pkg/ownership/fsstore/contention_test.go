package fsstore

import (
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Sixteen processes acquire the same name, round after round: exactly one
// owns it each round, and every loser names the winner. Each round's
// winner then leaves, alternately by releasing and exiting (the next round
// races on a free name over a released record) and by being killed (the
// next round races to reclaim a dead owner's lock and record). The helpers
// are long-lived and driven over pipes; only a round's winner is replaced.
func TestAcquireContention(t *testing.T) {
	t.Run("name lock", func(t *testing.T) { testAcquireContention(t, "acquire") })
	// As reference daemons would, with no name lock: the files alone fence.
	t.Run("files only", func(t *testing.T) { testAcquireContention(t, "acquire files") })
}

func testAcquireContention(t *testing.T, command string) {
	const contenders = 16
	rounds := 100
	if testing.Short() {
		rounds = 20
	}
	agentDir := t.TempDir()
	p := ownership.PathsFor(agentDir, "bot")
	helpers := make([]*helper, contenders)
	owners := make([]string, contenders)
	start := func(i, round int) {
		owners[i] = fmt.Sprintf("owner-%d-%d", round, i)
		helpers[i] = startAcquirer(t, agentDir, "bot", owners[i])
	}
	for i := range helpers {
		start(i, 0)
	}
	for round := range rounds {
		for _, h := range helpers {
			h.Send(t, command)
		}
		winner := -1
		replies := make([]string, contenders)
		for i, h := range helpers {
			replies[i] = h.Recv(t)
			if replies[i] == "won" {
				if winner >= 0 {
					t.Fatalf("round %d: two owners, helpers %d and %d", round, winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no owner: %q", round, replies)
		}
		w := helpers[winner]
		for i, r := range replies {
			if i == winner {
				continue
			}
			f := strings.Fields(r)
			if len(f) != 3 || f[0] != "held" || f[1] != strconv.Itoa(w.PID()) ||
				(f[2] != "-" && f[2] != owners[winner]) {
				t.Fatalf("round %d: loser %d said %q; the owner is pid %d", round, i, r, w.PID())
			}
		}
		st := ReadState(p).State
		if st == nil || st.PID != w.PID() || st.OwnerID != owners[winner] {
			t.Fatalf("round %d: record %+v, winner pid %d", round, st, w.PID())
		}
		if round%2 == 0 {
			w.Send(t, "release")
			if got := w.Recv(t); got != "released" {
				t.Fatalf("round %d: release: %s", round, got)
			}
		} else {
			_ = w.Cmd.Process.Signal(syscall.SIGKILL)
		}
		w.Stop() // exited and reaped: its PID is dead
		start(winner, round+1)
	}
	assertNoLeftovers(t, p)
}
