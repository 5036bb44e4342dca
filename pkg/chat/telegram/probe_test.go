package telegram

import "testing"

func TestDecide(t *testing.T) {
	nf := func(n int) []Answer {
		a := make([]Answer, n)
		for i := range a {
			a[i] = NotFound
		}
		return a
	}
	cant := func(n int) []Answer {
		a := make([]Answer, n)
		for i := range a {
			a[i] = CantEdit
		}
		return a
	}
	cat := func(as ...[]Answer) []Answer {
		var out []Answer
		for _, a := range as {
			out = append(out, a...)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		answers []Answer
		v       Verdict
		found   int64
		next    int64
	}{
		{"nothing asked yet", nil, Probing, 0, 11},
		{"first id is ours", []Answer{NotModified}, Posted, 11, 0},
		{"ours above others", []Answer{CantEdit, CantEdit, NotModified}, Posted, 13, 0},
		{"one missing then ours", []Answer{NotFound, NotModified}, Posted, 12, 0},
		{"short gap still probing", nf(topGap - 1), Probing, 0, 10 + topGap},
		{"gap past the top", nf(topGap), NotPosted, 0, 0},
		{"others then the top", cat(cant(3), nf(topGap)), NotPosted, 0, 0},
		{"a deleted one is no top", cat(nf(topGap-1), []Answer{CantEdit}, nf(2)), Probing, 0, 10 + topGap + 3},
		{"an unknown answer", []Answer{CantEdit, Unknown}, Undecided, 0, 0},
		{"the probe edited a message of ours", []Answer{Edited}, Undecided, 0, 0},
		{"bounded", cant(maxProbe), Undecided, 0, 0},
		{"known ones do not count", cat(cant(maxProbe-1), []Answer{Skipped}), Probing, 0, 10 + maxProbe + 1},
		{"the bot's message of the other kind", []Answer{OtherKind, NotModified}, Posted, 12, 0},
		{"one of the other kind is no top", cat(nf(topGap-1), []Answer{OtherKind}, nf(topGap-1)), Probing, 0, 10 + 2*topGap},
		{"a known one is no top", cat(nf(topGap-1), []Answer{Skipped}, nf(topGap-1)), Probing, 0, 10 + 2*topGap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, found, next := Decide(10, tc.answers)
			if v != tc.v || found != tc.found || next != tc.next {
				t.Errorf("Decide = %v %d %d, want %v %d %d", v, found, next, tc.v, tc.found, tc.next)
			}
		})
	}
}
