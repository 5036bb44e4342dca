package providertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/ownership"
)

// startRelay runs the daemon's relay (chat.NewRelay: the provider's
// poster, the bus under dir) with short back-offs, and step, when given,
// at each labelled step of its requests.
func startRelay(t *testing.T, s Subject, rig Fake, dir string, step ...func(step, key string)) chat.RelayComponent {
	t.Helper()
	var o chat.RelayOptions
	if len(step) > 0 {
		o.Step = step[0]
	}
	o.MinBackoff, o.MaxBackoff = 10*time.Millisecond, 100*time.Millisecond
	o.Settle = 3 * time.Second
	rc, err := chat.NewRelay(s.Provider(0), s.config(rig.URL(), ""), dir, testr.New(t), o)(fenceOnly{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopRelay(t, rc) })
	return rc
}

func stopRelay(t *testing.T, rc chat.RelayComponent) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rc.Stop(ctx); err != nil {
		t.Errorf("stopping the relay: %v", err)
	}
}

// waitRelay waits, on the relay's change notices, until its state
// satisfies cond.
func waitRelay(ctx context.Context, t *testing.T, rc chat.RelayComponent, what string, cond func(*ownership.RelayState) bool) {
	t.Helper()
	for {
		if s := rc.RelayState(); s != nil && cond(s) {
			return
		}
		select {
		case <-rc.RelayChanged():
		case <-rc.Done():
			t.Fatalf("waiting for %s: the relay ended: %v", what, rc.Err())
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v; relay state %+v", what, ctx.Err(), describe(rc.RelayState()))
		}
	}
}

// waitPlaces waits, on the fake's change notices, until what the
// channel holds satisfies cond.
func waitPlaces(ctx context.Context, t *testing.T, rig Fake, what string, cond func([]Place) bool) []Place {
	t.Helper()
	if err := rig.WaitFor(ctx, func() bool { return cond(rig.Places()) }); err != nil {
		t.Fatalf("waiting for %s: %v; the channel holds %+v", what, err, rig.Places())
	}
	return rig.Places()
}

func noneFailed(t *testing.T, dirs bus.Dirs) {
	t.Helper()
	entries, err := os.ReadDir(dirs.Failed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dirs.Failed, e.Name()))
		t.Errorf("failed/%s: %s", e.Name(), data)
	}
}

func describe(s *ownership.RelayState) string {
	if s == nil {
		return "none"
	}
	b := "none"
	if s.Blocked != nil {
		b = s.Blocked.Reason + ": " + s.Blocked.Message
	}
	return fmt.Sprintf("pending %d, failed %d, blocked %s", s.Pending, s.Failed, b)
}
