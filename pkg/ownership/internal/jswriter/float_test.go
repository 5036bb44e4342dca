package jswriter

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

// Float writes what JSON readers read back as the same double, in
// JavaScript's forms where they matter to a person reading the file.
func TestFloat(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1.75, "1.75"},
		{100, "100"},
		{0.000001, "0.000001"},
		{1e-7, "1e-7"},
		{1.5e-300, "1.5e-300"},
		{123456789.125, "123456789.125"},
		{1e21, "1e+21"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
	} {
		w := New(0)
		w.Float(tc.in)
		got := string(w.Bytes())
		if got != tc.want {
			t.Errorf("Float(%v) = %s, want %s", tc.in, got, tc.want)
		}
		var back float64
		if err := json.Unmarshal(w.Bytes(), &back); err != nil || back != tc.in {
			t.Errorf("Float(%v) = %s reads back as %v, %v", tc.in, got, back, err)
		}
		if f, err := strconv.ParseFloat(got, 64); err != nil || f != tc.in {
			t.Errorf("Float(%v) = %s parses as %v, %v", tc.in, got, f, err)
		}
	}
}
