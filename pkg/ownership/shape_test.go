package ownership

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	rt "gjc.dev/reconciler/pkg/ownership/internal/recordtest"
)

// The done-when test: the records this package writes, state.json through
// an owner's life (acquired, renewed unhealthy and healthy, released),
// owner.lock and control.json, are accepted field for field by the
// reference's hasSafeChatDaemonStateShape, with the key set, order and
// types of its ChatDaemonState. Every store writes these bytes (Marshal).
func TestRecordsMatchReferenceShapes(t *testing.T) {
	shapes := loadShapes(t)
	st := State{
		Version: RecordVersion, Kind: "slack", PID: 4242, OwnerID: rt.OwnerID, Identity: rt.Identity,
		Incarnation: "linux:98231", StartedAt: 1764450000000, HeartbeatAt: 1764450000000,
		Generation: gen(7), BootID: "b1d0c0de-0000-4000-8000-000000000001",
	}
	states := []State{st} // as acquired
	st.HeartbeatAt, st.TransportError = st.HeartbeatAt+5000, "gateway closed"
	states = append(states, st)
	st.HeartbeatAt, st.TransportHealthy, st.TransportError = st.HeartbeatAt+5000, true, ""
	states = append(states, st)
	st.StoppedAt, st.TransportHealthy = ms(st.HeartbeatAt+1000), false
	st.Terminated = &Terminated{Reason: "InvalidCredentials", Message: "invalid_auth"}
	states = append(states, st)
	for _, s := range states {
		data := s.Marshal()
		checkShape(t, data, shapes.State.Keys, shapes.State.Extensions)
		if v, ok := rt.JSParse(data); !ok || !rt.StateShape(v) {
			t.Fatalf("hasSafeChatDaemonStateShape refuses %s", data)
		}
	}
	lock := (&OwnerLock{PID: 4242, Incarnation: "linux:98231", CreatedAt: 1764450000000}).Marshal()
	checkShape(t, lock, shapes.Lock.Keys, nil)
	if v, ok := rt.JSParse(lock); !ok || !rt.OwnerLock(v) {
		t.Fatalf("isChatDaemonOwnerLock refuses %s", lock)
	}
	control := NewControlRequest(ActionStop, st, time.Now())
	checkShape(t, control.Marshal(), shapes.Control.Keys, nil)
}

type shapeKey struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Rule     string `json:"rule"`
	Required bool   `json:"required"`
}

type shapeFixture struct {
	State struct {
		Keys       []shapeKey `json:"keys"`
		Extensions []shapeKey `json:"extensions"`
	} `json:"state"`
	Lock    struct{ Keys []shapeKey } `json:"lock"`
	Control struct{ Keys []shapeKey } `json:"control"`
}

func loadShapes(t *testing.T) shapeFixture {
	t.Helper()
	data, err := os.ReadFile("testdata/reference_shapes.json")
	if err != nil {
		t.Fatal(err)
	}
	var f shapeFixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkShape checks data's keys, their order and their JavaScript types
// against the reference's keys followed by the allowed extensions.
func checkShape(t *testing.T, data []byte, keys, extensions []shapeKey) {
	t.Helper()
	if !bytes.HasSuffix(data, []byte("}\n")) || bytes.Count(data, []byte("\n")) != 1 {
		t.Fatalf("not one JSON.stringify line plus \\n: %q", data)
	}
	obj, err := shapeMembers(data)
	if err != nil {
		t.Fatal(err)
	}
	all := append(append([]shapeKey(nil), keys...), extensions...)
	i := 0
	for _, m := range obj {
		for i < len(all) && all[i].Name != m.key {
			if all[i].Required {
				t.Fatalf("%s: required key %q missing or out of order", data, all[i].Name)
			}
			i++
		}
		if i == len(all) {
			t.Fatalf("%s: key %q is not in the reference shape, or out of order", data, m.key)
		}
		if got := jsType(m.raw); got != all[i].Type {
			t.Fatalf("%s: %q is a %s, the reference has %s", data, m.key, got, all[i].Type)
		}
		i++
	}
	for ; i < len(all); i++ {
		if all[i].Required {
			t.Fatalf("%s: required key %q missing", data, all[i].Name)
		}
	}
}

type shapeMember struct {
	key string
	raw json.RawMessage
}

// shapeMembers splits a JSON object into its keys and raw values, in order,
// with encoding/json rather than the parser under test.
func shapeMembers(data []byte) ([]shapeMember, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %q", data)
	}
	var out []shapeMember
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, shapeMember{key: tok.(string), raw: raw})
	}
	return out, nil
}
