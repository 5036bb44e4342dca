package main

import (
	"slices"
	"testing"
)

func r(name, phase, age string) row {
	return row{name: name, cells: []string{name, "slack", "Running", phase, "1", "42", "True", "0", age, "Ready"}}
}

func rowKeys(rows []row) []string {
	var out []string
	for _, x := range rows {
		out = append(out, x.name+":"+x.cells[3]+":"+x.cells[ageColumn])
	}
	return out
}

// What `status -w` prints after a look: kubectl's watch, one row per
// change, AGE alone being no change.
func TestWatchStep(t *testing.T) {
	for _, tc := range []struct {
		what       string
		seen, next []row
		want       []string
	}{
		{"nothing changed", []row{r("a", "Running", "5s")}, []row{r("a", "Running", "5s")}, nil},
		{"only AGE moved", []row{r("a", "Running", "5s")}, []row{r("a", "Running", "9s")}, nil},
		{"a changed row is printed with its AGE now", []row{r("a", "Running", "5s"), r("b", "Running", "1m")},
			[]row{r("a", "Running", "6s"), r("b", "Stopped", "2m")}, []string{"b:Stopped:2m"}},
		{"a new name", []row{r("a", "Running", "5s")}, []row{r("a", "Running", "5s"), r("b", "Starting", "0s")}, []string{"b:Starting:0s"}},
		{"first look of all", nil, []row{r("a", "Running", "5s"), r("b", "Running", "5s")}, []string{"a:Running:5s", "b:Running:5s"}},
		{"a name gone: its last row once more", []row{r("a", "Running", "5s"), r("b", "Stopped", "-")}, []row{r("a", "Running", "5s")}, []string{"b:Stopped:-"}},
		{"changes in the look's order, then the gone", []row{r("c", "Running", "1s"), r("b", "Running", "1s"), r("a", "Running", "1s")},
			[]row{r("a", "Stopped", "-"), r("b", "Stopped", "-")}, []string{"a:Stopped:-", "b:Stopped:-", "c:Running:1s"}},
		{"a wider row (-o wide) is a change", []row{r("a", "Running", "5s")},
			[]row{{name: "a", cells: append(r("a", "Running", "5s").cells, "-", "-", "-", "healthy")}}, []string{"a:Running:5s"}},
	} {
		if got := rowKeys(watchStep(tc.seen, tc.next)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: printed %v, want %v", tc.what, got, tc.want)
		}
	}
}

func TestNewNotes(t *testing.T) {
	for _, tc := range []struct{ seen, next, want []string }{
		{nil, []string{"spec invalid"}, []string{"spec invalid"}},
		{[]string{"spec invalid"}, []string{"spec invalid"}, nil},
		{[]string{"spec invalid"}, nil, nil},
		{[]string{"problem: x"}, []string{"problem: x", "problem: y"}, []string{"problem: y"}},
	} {
		if got := newNotes(tc.seen, tc.next); !slices.Equal(got, tc.want) {
			t.Errorf("newNotes(%v, %v) = %v, want %v", tc.seen, tc.next, got, tc.want)
		}
	}
}

func TestSpecValidAgain(t *testing.T) {
	for _, c := range []struct {
		was, now bool
		say      bool
	}{{true, true, false}, {true, false, false}, {false, false, false}, {false, true, true}} {
		if got := specValidAgain(c.was, c.now); (got != "") != c.say {
			t.Errorf("specValidAgain(%v, %v) = %q; want said: %v", c.was, c.now, got, c.say)
		}
	}
}
