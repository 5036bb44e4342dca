package relay

import (
	"slices"
	"testing"
)

// A take says all whenever a nameless poke came since the last take,
// whatever names came with it: wakes merge, and a merged one must not
// shrink a full listing to the names.
func TestTouchedTake(t *testing.T) {
	for _, tc := range []struct {
		name      string
		add       []string
		all       bool
		wantNames []string
		wantAll   bool
	}{
		{"nothing", nil, false, nil, false},
		{"names", []string{"b.json", "a.json", "b.json"}, false, []string{"a.json", "b.json"}, false},
		{"nameless alone", nil, true, nil, true},
		{"nameless merged into names", []string{"a.json"}, true, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tt touched
			for _, n := range tc.add {
				tt.add(n)
			}
			if tc.all {
				tt.everything()
			}
			names, all := tt.take()
			if !slices.Equal(names, tc.wantNames) || all != tc.wantAll {
				t.Fatalf("take = %v, %v; want %v, %v", names, all, tc.wantNames, tc.wantAll)
			}
			if names, all := tt.take(); names != nil || all {
				t.Fatalf("a second take = %v, %v; want nothing", names, all)
			}
		})
	}
}
