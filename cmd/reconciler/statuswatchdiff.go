package main

import "slices"

// watchStep decides what `status -w` prints after a look, as `kubectl get
// -w` does: the row of every name that is new or changed in anything but
// AGE (AGE is computed when printed, so it moves on the rows printed, and
// is no change of its own), in the look's order; then, for each name gone
// since the last look, its last row once more, as kubectl prints a deleted
// object's last state. seen is what the last look saw; the next call gets
// next as its seen.
func watchStep(seen, next []row) (print []row) {
	last := make(map[string][]string, len(seen))
	for _, r := range seen {
		last[r.name] = r.cells
	}
	now := make(map[string]bool, len(next))
	for _, r := range next {
		now[r.name] = true
		if prev, ok := last[r.name]; !ok || !sameButAge(prev, r.cells) {
			print = append(print, r)
		}
	}
	for _, r := range seen {
		if !now[r.name] {
			print = append(print, r)
		}
	}
	return print
}

// sameButAge compares two rows of one name, AGE left out.
func sameButAge(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if i != ageColumn && a[i] != b[i] {
			return false
		}
	}
	return true
}

// newNotes are the notes of a look that the last one did not have: a spec
// turning invalid, a problem found, each said once while it lasts.
func newNotes(seen, next []string) []string {
	var out []string
	for _, n := range next {
		if !slices.Contains(seen, n) {
			out = append(out, n)
		}
	}
	return out
}
