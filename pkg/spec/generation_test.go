package spec

import (
	"encoding/json"
	"testing"
)

func TestGenerationValid(t *testing.T) {
	for g, want := range map[Generation]bool{-1: false, 0: true, 7: true, MaxSafeInteger: true, MaxSafeInteger + 1: false} {
		if g.Valid() != want {
			t.Errorf("Generation(%d).Valid() = %v", g, !want)
		}
	}
}

// The JSON of an optional generation is the nil *int64's it replaced: none
// is left out (omitzero), a known one is its number, null reads as none.
func TestOptGenerationJSON(t *testing.T) {
	type status struct {
		Generation OptGeneration `json:"generation,omitzero"`
	}
	for _, tc := range []struct {
		g    OptGeneration
		json string
	}{
		{NoGeneration, `{}`},
		{Generation(0).Opt(), `{"generation":0}`},
		{Generation(7).Opt(), `{"generation":7}`},
	} {
		data, err := json.Marshal(status{tc.g})
		if err != nil || string(data) != tc.json {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tc.g, data, err, tc.json)
		}
		var back status
		if err := json.Unmarshal(data, &back); err != nil || back.Generation != tc.g {
			t.Errorf("Unmarshal(%s) = %+v, %v", data, back, err)
		}
	}
	var back status
	if err := json.Unmarshal([]byte(`{"generation":null}`), &back); err != nil || back.Generation != NoGeneration {
		t.Errorf("null read as %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"generation":"7"}`), &back); err == nil {
		t.Error("a string read as a generation")
	}
}
