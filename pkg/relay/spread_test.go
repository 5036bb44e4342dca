package relay

import (
	"strings"
	"testing"
)

func TestSpread(t *testing.T) {
	tests := []struct {
		parts []string
		n     int
		want  []string
	}{
		{[]string{"one two three four"}, 2, []string{"one two", "three four"}},
		{[]string{"line one\nline two"}, 2, []string{"line one", "line two"}},
		{[]string{"abcd"}, 2, []string{"ab", "cd"}},
		{[]string{"ééé"}, 2, []string{"é", "éé"}},
		{[]string{"a", "b c d e"}, 3, []string{"a", "b c", "d e"}},
		{[]string{"x"}, 3, []string{"x"}}, // nothing left to cut
		{[]string{"a b"}, 1, []string{"a b"}},
	}
	for _, tt := range tests {
		got := spread(tt.parts, tt.n)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("spread(%q, %d) = %q, want %q", tt.parts, tt.n, got, tt.want)
		}
	}
}
