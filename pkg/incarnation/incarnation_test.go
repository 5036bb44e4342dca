package incarnation_test

import (
	"testing"

	"gjc.dev/reconciler/pkg/incarnation"
)

func TestValid(t *testing.T) {
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
		if got := incarnation.Valid(tc.s); got != tc.want {
			t.Errorf("Valid(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
