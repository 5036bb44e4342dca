package ownership_test

import (
	"slices"
	"testing"

	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// The record declares the words it carries so that a store need not link
// inbound or the platform to read one; these tests hold each word to the
// package that means it. (The relay uses the record's block reasons
// themselves.)

func TestInboxIgnoredReasonsAreInbounds(t *testing.T) {
	var want []string
	for _, r := range inbound.Reasons {
		want = append(want, string(r))
	}
	if !slices.Equal(ownership.InboxIgnoredReasons, want) {
		t.Fatalf("record's inboxIgnoredBy keys %q; inbound's reasons %q", ownership.InboxIgnoredReasons, want)
	}
}

func FuzzValidIncarnationIsThePlatforms(f *testing.F) {
	for _, s := range []string{"linux:98231", "linux:0", "linux:01", "linux:18446744073709551616", "darwin:1764450000:123456",
		"darwin:0:1", "darwin:1:1000000", "darwin:1:01", "unavailable", "", "linux:١", "darwin:1:2:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ownership.ValidIncarnation(s), platform.ValidIncarnation(s); got != want {
			t.Fatalf("ValidIncarnation(%q) = %v; the platform's %v", s, got, want)
		}
	})
}
