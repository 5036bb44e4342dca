package fsstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	rt "gjc.dev/reconciler/pkg/ownership/internal/recordtest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestStateMarshalBytes(t *testing.T) {
	s := ownership.State{
		Version: 1, Kind: "discord", PID: 4242, OwnerID: "4100-abc", Identity: "7040273bec62d43f",
		Incarnation: "linux:98231", StartedAt: 1764450000000, HeartbeatAt: 1764450005000,
		TransportHealthy: true, Generation: gen(7),
	}
	want := `{"version":1,"kind":"discord","pid":4242,"ownerId":"4100-abc","identity":"7040273bec62d43f",` +
		`"incarnation":"linux:98231","startedAt":1764450000000,"heartbeatAt":1764450005000,"transportHealthy":true,"generation":7}` + "\n"
	if got := string(s.Marshal()); got != want {
		t.Fatalf("Marshal:\n got %s\nwant %s", got, want)
	}
	s.StoppedAt, s.TransportHealthy = gen(1764450009000), false
	s.TransportError = "closed"
	s.Terminated = &ownership.Terminated{Reason: "InvalidCredentials", Message: "close 4004"}
	want = strings.TrimSuffix(want, "\n")
	want = strings.Replace(want, `"transportHealthy":true,"generation":7}`,
		`"transportHealthy":false,"generation":7,"stoppedAt":1764450009000,"transportError":"closed",`+
			`"terminated":{"reason":"InvalidCredentials","message":"close 4004"}}`, 1) + "\n"
	if got := string(s.Marshal()); got != want {
		t.Fatalf("Marshal released:\n got %s\nwant %s", got, want)
	}
	s.Generation = nil
	if got := string(s.Marshal()); strings.Contains(got, "generation") {
		t.Fatalf("legacy generation written: %s", got)
	}
	lock := (&ownership.OwnerLock{PID: 4242, Incarnation: "linux:98231", CreatedAt: 1764450000000}).Marshal()
	if want := `{"pid":4242,"incarnation":"linux:98231","createdAt":1764450000000}` + "\n"; string(lock) != want {
		t.Fatalf("lock: %s", lock)
	}
}

// JSON.stringify escapes only ", \, and control characters (\b \f \n \r \t
// short, the rest \u00xx); encoding/json also escapes <, >, & and
// U+2028/U+2029, which would make the bytes differ from the reference's.
func TestMarshalEscapesLikeJSONStringify(t *testing.T) {
	s := ownership.State{OwnerID: "a<b>&c\u2028\u2029\"\\\b\f\n\r\t\x01\x1f\x7fé😀", Identity: "bad\xffutf8"}
	got := string(s.Marshal())
	for _, want := range []string{
		`"ownerId":"a<b>&c` + "\u2028\u2029" + `\"\\\b\f\n\r\t\u0001\u001f` + "\x7fé😀" + `"`,
		`"identity":"bad` + "\ufffd" + `utf8"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Marshal = %s\nmissing %s", got, want)
		}
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(got), &back); err != nil || back["ownerId"] != s.OwnerID {
		t.Fatalf("does not read back: %v %q", err, back["ownerId"])
	}
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
	obj, err := members(data)
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

// The done-when test: what this package writes is accepted, field for
// field, by the reference's hasSafeChatDaemonStateShape, with the key set,
// order and types of its ChatDaemonState.
func TestRecordsMatchReferenceShapes(t *testing.T) {
	shapes := loadShapes(t)
	p := newPaths(t)
	o, err := Acquire(p, ownership.AcquireRequest{Kind: "slack", OwnerID: NewOwnerID(), Identity: testIdentity, Generation: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	var records [][]byte
	read := func() {
		data, err := os.ReadFile(p.State)
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, data)
	}
	read() // as acquired
	lock, err := os.ReadFile(p.Lock)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Renew(ownership.Heartbeat{TransportError: "gateway closed"}); err != nil {
		t.Fatal(err)
	}
	read()
	if err := o.Renew(ownership.Heartbeat{TransportHealthy: true}); err != nil {
		t.Fatal(err)
	}
	read()
	if err := o.Release(&ownership.Terminated{Reason: "InvalidCredentials", Message: "invalid_auth"}); err != nil {
		t.Fatal(err)
	}
	read()
	for _, data := range records {
		checkShape(t, data, shapes.State.Keys, shapes.State.Extensions)
		v, ok := rt.JSParse(data)
		if !ok || !rt.StateShape(v) {
			t.Fatalf("hasSafeChatDaemonStateShape refuses %s", data)
		}
	}
	checkShape(t, lock, shapes.Lock.Keys, nil)
	if v, ok := rt.JSParse(lock); !ok || !rt.OwnerLock(v) {
		t.Fatalf("isChatDaemonOwnerLock refuses %s", lock)
	}
	if err := WriteControl(p, ownership.NewControlRequest(ownership.ActionStop, o.State(), time.Now())); err != nil {
		t.Fatal(err)
	}
	control, err := os.ReadFile(p.Control)
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, control, shapes.Control.Keys, nil)
}

// With node installed, the reference's own predicates (transcribed
// verbatim to JavaScript) judge what we write, and JSON.stringify of what
// JSON.parse reads back must reproduce our bytes exactly.
func TestReferenceJavaScriptAcceptsOurRecords(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	p := newPaths(t)
	o, err := Acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: NewOwnerID(), Identity: testIdentity, Generation: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	var lines []string
	add := func(path string) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(data))
	}
	add(p.State)
	add(p.Lock)
	_ = o.Renew(ownership.Heartbeat{TransportError: "a<b>&\u2028\"\\\n\x01"})
	add(p.State)
	_ = o.Release(&ownership.Terminated{Reason: "X", Message: "y"})
	add(p.State)
	if err := WriteControl(p, ownership.NewControlRequest(ownership.ActionReload, o.State(), time.Now())); err != nil {
		t.Fatal(err)
	}
	add(p.Control)
	cmd := exec.Command(node, "-e", referenceJS)
	cmd.Stdin = strings.NewReader(strings.Join(lines, ""))
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("node: %v\n%s", err, out)
	}
}

// referenceJS is the reference's shape predicates, verbatim apart from
// isProcessIncarnation, which is this system's incarnation format.
const referenceJS = `
const isProcessIncarnation = s => /^linux:(0|[1-9][0-9]*)$/.test(s) || /^darwin:(0|[1-9][0-9]*):(0|[1-9][0-9]{0,5})$/.test(s);
function hasProcessIncarnationAuthority(incarnation) { return typeof incarnation === "string" && isProcessIncarnation(incarnation); }
function hasSafeChatDaemonOwnerShape(value) {
	if (!value || typeof value !== "object" || Array.isArray(value)) return false;
	const state = value;
	return (
		state.version === 1 && (state.kind === "discord" || state.kind === "slack") &&
		typeof state.pid === "number" && Number.isSafeInteger(state.pid) && state.pid > 0 &&
		typeof state.ownerId === "string" && state.ownerId.length > 0 &&
		typeof state.identity === "string" && state.identity.length > 0 &&
		hasProcessIncarnationAuthority(state.incarnation) &&
		typeof state.startedAt === "number" && Number.isFinite(state.startedAt) &&
		typeof state.heartbeatAt === "number" && Number.isFinite(state.heartbeatAt) &&
		typeof state.transportHealthy === "boolean" &&
		(state.stoppedAt === undefined || (typeof state.stoppedAt === "number" && Number.isFinite(state.stoppedAt)))
	);
}
function hasSafeChatDaemonStateShape(value) {
	if (!hasSafeChatDaemonOwnerShape(value)) return false;
	return typeof value.generation === "number" && Number.isSafeInteger(value.generation) && value.generation >= 0;
}
function isChatDaemonOwnerLock(value) {
	return typeof value === "object" && value !== null && typeof value.pid === "number" &&
		Number.isSafeInteger(value.pid) && value.pid > 0 && typeof value.incarnation === "string" &&
		typeof value.createdAt === "number";
}
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(l => l !== "");
for (const line of lines) {
	const v = JSON.parse(line);
	if (JSON.stringify(v) !== line) throw new Error("JSON.stringify differs: " + line);
	const ok = "requestId" in v ? (v.version === 1 && (v.action === "stop" || v.action === "reload"))
		: "version" in v ? hasSafeChatDaemonStateShape(v) : isChatDaemonOwnerLock(v);
	if (!ok) throw new Error("reference refuses: " + line);
}
console.log("ok");
`

type member struct {
	key string
	raw json.RawMessage
}

// members splits a JSON object into its keys and raw values, in order.
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %q", data)
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, member{key: tok.(string), raw: raw})
	}
	return out, nil
}

// jsType is JavaScript's typeof of a raw JSON value, null and arrays told
// apart from objects.
func jsType(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "number"
}
