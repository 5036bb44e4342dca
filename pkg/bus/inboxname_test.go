package bus

import (
	"strings"
	"testing"
)

func TestSanitizeInboxFileName(t *testing.T) {
	long := strings.Repeat("é", 200) + ".png" // 404 bytes
	for _, c := range []struct{ in, want string }{
		{"screenshot.png", "screenshot.png"},
		{"Screenshot 2026-01-02 at 10.00.00\u202fAM.png", "Screenshot 2026-01-02 at 10.00.00\u202fAM.png"},
		{"../../.ssh/authorized_keys", "authorized_keys"},
		{`C:\Users\me\report.pdf`, "report.pdf"},
		{".bashrc", "_bashrc"},
		{"..", "__"},
		{"dir/", "file"},
		{"", "file"},
		{"a\x00b\nc\x1b[31m.txt", "a_b_c_[31m.txt"},
		{"invoice\u202Egnp.exe", "invoice_gnp.exe"},
		{"bad\xffutf8.txt", "bad_utf8.txt"},
		{long, strings.Repeat("é", 125) + ".png"},
	} {
		got := SanitizeInboxFileName(c.in)
		if got != c.want {
			t.Errorf("SanitizeInboxFileName(%q) = %q, want %q", c.in, got, c.want)
		}
		if len(got) > MaxInboxFileName || SanitizeInboxFileName(got) != got || !validInboxFileName(got) {
			t.Errorf("SanitizeInboxFileName(%q) = %q: not a fixed point of at most %d bytes", c.in, got, MaxInboxFileName)
		}
	}
}

func TestUniqueInboxFileName(t *testing.T) {
	used := map[string]bool{}
	var got []string
	for _, n := range []string{"shot.png", "Shot.PNG", "shot.png", "sub/shot.png", "notes"} {
		got = append(got, UniqueInboxFileName(n, used))
	}
	want := []string{"shot.png", "Shot (2).PNG", "shot (3).png", "shot (4).png", "notes"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("names = %q, want %q", got, want)
	}
	long := strings.Repeat("x", 300) + ".png"
	a, b := UniqueInboxFileName(long, used), UniqueInboxFileName(long, used)
	if len(a) != MaxInboxFileName || len(b) != MaxInboxFileName || !strings.HasSuffix(b, "x (2).png") {
		t.Fatalf("long names: %q (%d), %q (%d)", a, len(a), b, len(b))
	}
}
