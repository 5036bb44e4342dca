package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Generation is a daemon's spec generation: the operator raises it to roll
// the daemon, the daemon is started at it, and its owner's record carries
// it. A valid one is a safe integer >= 0 (Valid). It is one type from the
// spec file to the record; only the wire edges (YAML and JSON numbers, the
// daemon's --generation flag) write it otherwise.
type Generation int64

// Valid reports a generation a record may carry: JavaScript, which reads
// the records too, compares integers exactly only up to MaxSafeInteger.
func (g Generation) Valid() bool { return g >= 0 && g <= MaxSafeInteger }

func (g Generation) String() string { return strconv.FormatInt(int64(g), 10) }

// Opt is g, known.
func (g Generation) Opt() OptGeneration { return OptGeneration{g: g, known: true} }

// OptGeneration is a generation where there may be none: an owner's record
// (a legacy record, written before generations, has none) or a daemon's
// status (a name no spec declares, a name no owner runs). The zero value,
// NoGeneration, is none. In JSON none is left out (with omitzero) and a
// known one is its number, as the nil pointers it replaces were.
type OptGeneration struct {
	g     Generation
	known bool
}

// NoGeneration is no generation known.
var NoGeneration OptGeneration

// Get returns the generation and whether there is one.
func (o OptGeneration) Get() (Generation, bool) { return o.g, o.known }

// String is the generation's number, or "" for none.
func (o OptGeneration) String() string {
	if !o.known {
		return ""
	}
	return o.g.String()
}

// IsZero reports NoGeneration, which omitzero leaves out of JSON.
func (o OptGeneration) IsZero() bool { return !o.known }

func (o OptGeneration) MarshalJSON() ([]byte, error) {
	if !o.known {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, int64(o.g), 10), nil
}

// UnmarshalJSON reads a number, or null as none.
func (o *OptGeneration) UnmarshalJSON(data []byte) error {
	if bytes.Equal(data, []byte("null")) {
		*o = NoGeneration
		return nil
	}
	var g int64
	if err := json.Unmarshal(data, &g); err != nil {
		return fmt.Errorf("generation: %w", err)
	}
	*o = Generation(g).Opt()
	return nil
}
