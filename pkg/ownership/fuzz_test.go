package ownership

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	rt "gjc.dev/reconciler/pkg/ownership/internal/recordtest"
	"gjc.dev/reconciler/pkg/spec"
)

// FuzzParseState: the record parser never panics; whatever it accepts
// re-marshals to bytes it accepts again as the same record (and marshals
// identically from then on); and it never accepts a record the reference's
// own predicates refuse.
func FuzzParseState(f *testing.F) {
	for _, tc := range rt.MalformedRecords(4242, "linux:98231") {
		f.Add(tc.Data)
	}
	r := rt.Record(4242, "linux:98231")
	f.Add(r.Bytes())
	f.Add(r.Without("generation").With("incarnation", `"unavailable"`).Bytes())
	f.Add(r.With("stoppedAt", "1764450009000").With("transportError", `"x"`).With("terminated", `{"reason":"R","message":"m"}`).Bytes())
	f.Add(r.With("relay", rt.GoodRelay).Bytes())
	f.Add(r.With("relay", `{"pending":0,"failed":0,"posted":1e0,"postSeconds":-0,"rateLimitWaits":0,"blocked":{"message":"\u0085","reason":"ChannelUnavailable"}}`).Bytes())
	f.Add(r.With("pid", "4.242e3").With("generation", "-0").With("future", `[{"a":null}]`).Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		checkObjectSplit(t, data)
		st, legacy, err := ParseState(data)
		if err != nil {
			if st != nil {
				t.Fatal("a State with an error")
			}
			return
		}
		v, ok := rt.JSParse(data)
		switch {
		case !ok:
			t.Fatalf("accepted what JSON.parse refuses: %q", data)
		case legacy && !rt.ExactLegacy(v):
			t.Fatalf("accepted as legacy what the reference does not recognise: %q", data)
		case !legacy && st.Generation != spec.NoGeneration && !rt.StateShape(v):
			t.Fatalf("accepted what hasSafeChatDaemonStateShape refuses: %q", data)
		case !legacy && st.Generation == spec.NoGeneration && !rt.LegacyGeneration(v):
			t.Fatalf("accepted a legacy generation the reference refuses: %q", data)
		}
		out := st.Marshal()
		again, legacyAgain, err := ParseState(out)
		if err != nil || legacyAgain != legacy || !statesEqual(*st, *again) {
			t.Fatalf("%q re-marshals to %q: %+v, legacy %v, %v", data, out, again, legacyAgain, err)
		}
		if !bytes.Equal(again.Marshal(), out) {
			t.Fatalf("marshal is not a fixed point: %q then %q", out, again.Marshal())
		}
	})
}

// FuzzParseOwnerLock and FuzzParseControl hold their parsers to the same
// promises.
func FuzzParseOwnerLock(f *testing.F) {
	f.Add([]byte(`{"pid":4242,"incarnation":"linux:98231","createdAt":1764450000000}` + "\n"))
	f.Add([]byte(`{"pid":1e3,"incarnation":"unavailable","createdAt":-0,"x":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseOwnerLock(data)
		if err != nil {
			return
		}
		if v, ok := rt.JSParse(data); !ok || !rt.OwnerLock(v) {
			t.Fatalf("accepted what isChatDaemonOwnerLock refuses: %q", data)
		}
		again, err := ParseOwnerLock(l.Marshal())
		if err != nil || *again != *l {
			t.Fatalf("%q re-marshals to %q: %+v, %v", data, l.Marshal(), again, err)
		}
	})
}

func FuzzParseControl(f *testing.F) {
	f.Add([]byte(`{"version":1,"requestId":"r","action":"stop","ownerId":"o","pid":1,"incarnation":"linux:1","createdAt":1}`))
	f.Add([]byte(`{"version":1.0,"requestId":"r","action":"reload","ownerId":"o","pid":2,"incarnation":"darwin:1:2","createdAt":3,"z":0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseControl(data)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted %q, which WriteControl would refuse: %v", data, err)
		}
		again, err := ParseControl(c.Marshal())
		if err != nil || *again != *c {
			t.Fatalf("%q re-marshals to %q: %+v, %v", data, c.Marshal(), again, err)
		}
	})
}

// checkObjectSplit holds parseObject's hand-written split to encoding/json:
// an object encoding/json decodes is split (unless a key repeats), into
// the same members with the same values.
func checkObjectSplit(t *testing.T, data []byte) {
	var want map[string]json.RawMessage
	wantErr := json.Unmarshal(data, &want)
	obj, err := parseObject(data)
	switch {
	case err != nil && errors.Is(err, errDuplicateKey):
		return
	case (err == nil) != (wantErr == nil && want != nil):
		t.Fatalf("parseObject(%q) = %v; encoding/json: %v", data, err, wantErr)
	case err != nil:
		return
	}
	if len(obj) != len(want) {
		t.Fatalf("parseObject(%q): %d members, encoding/json %d", data, len(obj), len(want))
	}
	for _, m := range obj {
		if !bytes.Equal(m.raw, want[string(m.key)]) {
			t.Fatalf("parseObject(%q): %q is %q, encoding/json %q", data, m.key, m.raw, want[string(m.key)])
		}
	}
}
