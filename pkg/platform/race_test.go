package platform_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"gjc.dev/reconciler/internal/filetest"
	"gjc.dev/reconciler/pkg/platform"
)

// Many contenders, in this process and in others, create the same name at
// once: exactly one wins each round, the file holds the winner's content
// whole, and no temp file is left behind.
func TestCreateExclusiveRace(t *testing.T) {
	const goroutines, processes, rounds = 32, 8, 500
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	creators := make([]*helper, processes)
	for i := range creators {
		creators[i] = startHelper(t, "", "creator", withEnv(fmt.Sprintf("%s=process-%d", helperIDEnv, i)))
	}
	processWins := 0
	for round := range rounds {
		start := make(chan struct{})
		type result struct {
			id  string
			err error
		}
		results := make(chan result, goroutines)
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				id := fmt.Sprintf("goroutine-%d", g)
				<-start
				_, err := platform.CreateExclusive(path, []byte(id))
				results <- result{id, err}
			})
		}
		for _, c := range creators {
			c.Send(t, path)
		}
		close(start)
		wg.Wait()
		close(results)

		var winners []string
		for r := range results {
			switch {
			case r.err == nil:
				winners = append(winners, r.id)
			case !errors.Is(r.err, platform.ErrExist):
				t.Fatalf("round %d: %s: %v", round, r.id, r.err)
			}
		}
		for i, c := range creators {
			switch answer := c.Recv(t); answer {
			case "win":
				winners = append(winners, fmt.Sprintf("process-%d", i))
				processWins++
			case "exist":
			default:
				t.Fatalf("round %d: process-%d: %s", round, i, answer)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: winners %v, want exactly one", round, winners)
		}
		if got := filetest.Read(t, path); got != winners[0] {
			t.Fatalf("round %d: file holds %q, winner was %s", round, got, winners[0])
		}
		filetest.AssertOnlyNames(t, dir, "owner.lock")
		lease, err := platform.CaptureLease(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := platform.ExactUnlink(path, lease); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d rounds, %d won by another process", rounds, processWins)
}

// A writer keeps replacing the file while ExactUnlink removes an old lease
// of it: the lease's version may go, a successor never does. The writer
// renames prepared files into place, a few microseconds apart, so its
// renames land inside ExactUnlink's quarantine-verify-restore window; the
// unlinker starts after a varying head start of the writer so every order
// of the two occurs.
func TestExactUnlinkRace(t *testing.T) {
	const rounds, writes = 1000, 3
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	outcomes := map[string]int{}
	for round := range rounds {
		gen := func(k int) string { return fmt.Sprintf("round-%04d-gen-%d", round, k) }
		filetest.Write(t, path, gen(0))
		old, err := platform.CaptureLease(path)
		if err != nil {
			t.Fatal(err)
		}
		successors := make([]string, writes+1)
		for k := 1; k <= writes; k++ {
			successors[k] = filepath.Join(dir, fmt.Sprintf("successor-%d", k))
			filetest.Write(t, successors[k], gen(k))
		}
		headStart := rand.IntN(4 * writes)
		start := make(chan struct{})
		progress := make(chan int, 4*writes)
		var wg sync.WaitGroup
		wg.Go(func() {
			<-start
			for k := 1; k <= writes; k++ {
				if err := os.Rename(successors[k], path); err != nil {
					t.Error(err)
				}
				progress <- k
				for range headStart {
					runtime.Gosched()
				}
			}
			close(progress)
		})
		var unlinkErr error
		wg.Go(func() {
			<-start
			// Let the writer get 0..writes renames ahead.
			for range headStart % (writes + 1) {
				<-progress
			}
			unlinkErr = platform.ExactUnlink(path, old)
		})
		close(start)
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}

		// The writer's last version must be in place, whatever happened.
		if got := filetest.Read(t, path); got != gen(writes) {
			t.Fatalf("round %d: %s holds %q, want the last successor %q (ExactUnlink: %v)", round, path, got, gen(writes), unlinkErr)
		}
		var quarantined *platform.QuarantinedError
		switch {
		case unlinkErr == nil:
			outcomes["deleted the lease"]++
		case errors.As(unlinkErr, &quarantined):
			// A successor, superseded meanwhile, kept aside, not deleted.
			got := filetest.Read(t, quarantined.Quarantine)
			if !strings.HasPrefix(got, fmt.Sprintf("round-%04d-gen-", round)) || got == gen(0) {
				t.Fatalf("round %d: quarantine holds %q, want a successor", round, got)
			}
			mustRemove(t, quarantined.Quarantine)
			outcomes["left a successor in quarantine"]++
		case errors.Is(unlinkErr, platform.ErrLeaseMismatch):
			outcomes["put a successor back"]++
		default:
			t.Fatalf("round %d: ExactUnlink: %v", round, unlinkErr)
		}
		filetest.AssertOnlyNames(t, dir, "owner.lock")
	}
	t.Logf("outcomes over %d rounds: %v", rounds, outcomes)
	for _, o := range []string{"deleted the lease", "put a successor back"} {
		if outcomes[o] == 0 {
			t.Errorf("no round ended with %q: the race was not exercised", o)
		}
	}
}
