package fsstore

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	rt "gjc.dev/reconciler/pkg/ownership/internal/recordtest"
)

// What this store writes through an owner's life is accepted by the
// reference's predicates (ownership's TestRecordsMatchReferenceShapes holds
// the records' key order and types).
func TestStoredRecordsPassTheReference(t *testing.T) {
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
		v, ok := rt.JSParse(data)
		if !ok || !rt.StateShape(v) {
			t.Fatalf("hasSafeChatDaemonStateShape refuses %s", data)
		}
	}
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
	if _, err := ownership.ParseControl(control); err != nil {
		t.Fatalf("control request %s: %v", control, err)
	}
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
