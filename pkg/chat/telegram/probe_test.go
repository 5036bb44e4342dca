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
		top     int64
		answers []Answer
		v       Verdict
		found   int64
		next    int64
	}{
		{"nothing asked yet", 0, nil, Probing, 0, 11},
		{"first id is ours", 0, []Answer{NotModified}, Posted, 11, 0},
		{"ours above others", 0, []Answer{CantEdit, CantEdit, NotModified}, Posted, 13, 0},
		{"one missing then ours", 0, []Answer{NotFound, NotModified}, Posted, 12, 0},
		{"short gap still probing", 0, nf(topGap - 1), Probing, 0, 10 + topGap},
		{"gap past the top", 0, nf(topGap), NotPosted, 0, 0},
		{"others then the top", 0, cat(cant(3), nf(topGap)), NotPosted, 0, 0},
		{"a deleted one is no top", 0, cat(nf(topGap-1), []Answer{CantEdit}, nf(2)), Probing, 0, 10 + topGap + 3},
		{"an unknown answer", 0, []Answer{CantEdit, Unknown}, Undecided, 0, 0},
		{"the probe edited a message of ours", 0, []Answer{Edited}, Undecided, 0, 0},
		{"bounded", 0, cant(maxProbe), Undecided, 0, 0},
		{"known ones do not count", 0, cat(cant(maxProbe-1), []Answer{Skipped}), Probing, 0, 10 + maxProbe + 1},
		{"the bot's message of the other kind", 0, []Answer{OtherKind, NotModified}, Posted, 12, 0},
		{"one of the other kind is no top", 0, cat(nf(topGap-1), []Answer{OtherKind}, nf(topGap-1)), Probing, 0, 10 + 2*topGap},
		{"a known one is no top", 0, cat(nf(topGap-1), []Answer{Skipped}, nf(topGap-1)), Probing, 0, 10 + 2*topGap},
		{"a gap below the known top is no top", 10 + topGap + 1, nf(topGap + 1), Probing, 0, 10 + topGap + 2},
		{"found above a gap below the known top", 10 + topGap + 1, cat(nf(topGap), []Answer{NotModified}), Posted, 10 + topGap + 1, 0},
		{"a gap above the known top is the top", 12, cat(nf(2), nf(topGap)), NotPosted, 0, 0},
		{"a gap straddling the known top ends past it", 12, nf(topGap + 1), Probing, 0, 10 + topGap + 2},
		{"the known top reached, then the top", 12, cat(cant(2), nf(topGap)), NotPosted, 0, 0},
		{"a known top below the start changes nothing", 5, nf(topGap), NotPosted, 0, 0},
		{"bounded below the known top too", 10 + 2*maxProbe, nf(maxProbe), Undecided, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, found, next := Decide(10, tc.top, tc.answers)
			if v != tc.v || found != tc.found || next != tc.next {
				t.Errorf("Decide = %v %d %d, want %v %d %d", v, found, next, tc.v, tc.found, tc.next)
			}
		})
	}
}
