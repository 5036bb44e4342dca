package platform_test

import (
	"errors"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

func TestIncarnationInvalidPID(t *testing.T) {
	for _, pid := range []int{0, -5, 1 << 30} {
		if _, err := platform.Incarnation(pid); !errors.Is(err, platform.ErrInvalidPID) {
			t.Errorf("Incarnation(%d) = %v, want ErrInvalidPID", pid, err)
		}
	}
}

func TestBootTime(t *testing.T) {
	bt, err := platform.BootTime()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if !bt.Before(now) || bt.Before(now.AddDate(-5, 0, 0)) {
		t.Fatalf("BootTime = %v, not a plausible boot before %v", bt, now)
	}
	again, err := platform.BootTime()
	if err != nil || !again.Equal(bt) {
		t.Fatalf("BootTime changed: %v then %v, %v", bt, again, err)
	}
}
