package ownership_test

import (
	"slices"
	"testing"

	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/ownership"
)

// The record declares the words it carries so that a store need not link
// inbound to read one; these tests hold each word to the
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
