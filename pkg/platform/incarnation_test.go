package platform_test

import (
	"errors"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

func TestValidIncarnation(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"linux:98231", true},
		{"linux:0", true},
		{"linux:18446744073709551615", true},
		{"darwin:1764450000:123456", true},
		{"darwin:1764450000:0", true},
		{"darwin:1:999999", true},
		{"darwin:0:999999", false}, // the reference refuses a zero start second

		{"unavailable", false},
		{"", false},
		{"linux:", false},
		{"linux", false},
		{"linux:-1", false},
		{"linux:+1", false},
		{"linux: 1", false},
		{"linux:1 ", false},
		{"linux:01", false},
		{"linux:1x", false},
		{"linux:0x10", false},
		{"linux:18446744073709551616", false},
		{"Linux:1", false},
		{" linux:1", false},
		{"xlinux:1", false},
		{"linux:1:2", false},
		{"linux:١", false},
		{"darwin:1", false},
		{"darwin:1:", false},
		{"darwin::1", false},
		{"darwin:1:1000000", false},
		{"darwin:1:01", false},
		{"darwin:1:2:3", false},
		{"darwin:Mon Nov 30 10:00:00 2025", false},
		{"linux:98231\n", false},
	} {
		if got := platform.ValidIncarnation(tc.s); got != tc.want {
			t.Errorf("ValidIncarnation(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

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
