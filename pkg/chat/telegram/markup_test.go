package telegram

import (
	"testing"
	"unicode/utf8"
)

func TestSafeText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"no at", "no at"},
		{"@alice hi", "＠alice hi"},
		{"cc @bob_2, @carol", "cc ＠bob_2, ＠carol"},
		{"(@dave)", "(＠dave)"},
		{"mail me@example.com", "mail me@example.com"},
		{"a lone @ sign", "a lone @ sign"},
		{"@@x", "@＠x"},
		{"ends with @", "ends with @"},
		{"é@zed", "é＠zed"},
	} {
		got := safeText(tc.in)
		if got != tc.want {
			t.Errorf("safeText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if utf8.RuneCountInString(got) != utf8.RuneCountInString(tc.in) {
			t.Errorf("safeText(%q) changed the length", tc.in)
		}
	}
}
