package bus

import (
	"bytes"
	"encoding/json"
	"testing"
)

// topKeys lists the top-level keys of an object, by the standard decoder.
func topKeys(line []byte) ([]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
	}
	return keys, true
}

func FuzzInboundLineKeys(f *testing.F) {
	f.Add([]byte(`{"op":"ask","id":"q","place":"T","session":"s","at":1,"remote":"R","choices":["a","b"]}`))
	f.Add([]byte(`{"op":"ask","id":"q","place":"T","session":"s","at":1,"remote":"R","choices":["a]\"","b"],"id":"x"}`))
	f.Add([]byte(`{"choices":[ "a" , "]" ],"op":"ask","id":"q","place":"T","session":"s","at":1,"remote":"R"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseInboundRecord(line)
		if err != nil {
			return
		}
		keys, ok := topKeys(line)
		if !ok {
			t.Fatalf("accepted %q that the decoder cannot walk", line)
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if _, known := inboundFields[k]; !known || seen[k] {
				t.Fatalf("accepted %q with key %q unknown or repeated (%+v)", line, k, r)
			}
			seen[k] = true
		}
	})
}
