package fsstore

import (
	"bytes"
	"errors"
	"gjc.dev/reconciler/pkg/ownership"
	rt "gjc.dev/reconciler/pkg/ownership/internal/recordtest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestControlRoundTrip(t *testing.T) {
	p := newPaths(t)
	c := ownership.ControlRequest{Version: 1, RequestID: "0b7c5f4e-1d2c-4c7e-9a55-3f1e2d4c5b6a", Action: ownership.ActionReload,
		OwnerID: testOwnerID, PID: 4242, Incarnation: "linux:98231", CreatedAt: 1764450000000}
	if err := WriteControl(p, c); err != nil {
		t.Fatal(err)
	}
	want := `{"version":1,"requestId":"0b7c5f4e-1d2c-4c7e-9a55-3f1e2d4c5b6a","action":"reload","ownerId":"` + testOwnerID +
		`","pid":4242,"incarnation":"linux:98231","createdAt":1764450000000}` + "\n"
	if got := mustRead(t, p.Control); string(got) != want {
		t.Fatalf("control.json:\n got %s\nwant %s", got, want)
	}
	if fi, _ := os.Lstat(p.Control); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	got, err := ReadControl(p)
	if err != nil || *got != c {
		t.Fatalf("ReadControl = %+v, %v", got, err)
	}
	if r := ownership.NewControlRequest(ownership.ActionStop, stateOf(4242, "linux:1"), time.Now()); r.RequestID == "" || r.Validate() != nil || r.PID != 4242 {
		t.Fatalf("NewControlRequest = %+v", r)
	}
}

func TestReadControlAbsentAndMalformed(t *testing.T) {
	if c, err := ReadControl(ownership.PathsFor(t.TempDir(), "bot")); c != nil || err != nil {
		t.Fatalf("no directory: %+v, %v", c, err)
	}
	p := newPaths(t)
	if c, err := ReadControl(p); c != nil || err != nil {
		t.Fatalf("no file: %+v, %v", c, err)
	}
	base := rt.Obj{{K: "version", V: "1"}, {K: "requestId", V: `"r1"`}, {K: "action", V: `"stop"`}, {K: "ownerId", V: `"o"`},
		{K: "pid", V: "4242"}, {K: "incarnation", V: `"linux:9"`}, {K: "createdAt", V: "1"}}
	if _, err := ownership.ParseControl(base.With("extra", "true").Bytes()); err != nil {
		t.Fatalf("unknown key: %v", err)
	}
	for _, data := range [][]byte{
		base.With("action", `"kill"`).Bytes(),
		base.Without("action").Bytes(),
		base.With("requestId", `""`).Bytes(),
		base.With("pid", "0").Bytes(),
		base.With("pid", `"4242"`).Bytes(),
		base.With("incarnation", `"unavailable"`).Bytes(),
		base.With("version", "2").Bytes(),
		base.With("createdAt", "null").Bytes(),
		base.Without("ownerId").Bytes(),
		[]byte("{"),
	} {
		writeFile(t, p.Control, data)
		c, err := ReadControl(p)
		if c != nil || !errors.Is(err, ownership.ErrMalformed) || ownership.Reason(err) != ownership.ReasonMalformedControl {
			t.Errorf("ReadControl(%s) = %+v, %v", data, c, err)
		}
	}
	mustRemove(t, p.Control)
	target := filepath.Join(t.TempDir(), "c.json")
	writeFile(t, target, base.Bytes())
	if err := os.Symlink(target, p.Control); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadControl(p); !errors.Is(err, ownership.ErrMalformed) {
		t.Fatalf("symlinked control.json: %v", err)
	}
}

func TestWriteControlRefuses(t *testing.T) {
	good := ownership.ControlRequest{Version: 1, RequestID: "r", Action: ownership.ActionStop, OwnerID: "o", PID: 1, Incarnation: "linux:1"}
	p := newPaths(t)
	for _, c := range []ownership.ControlRequest{
		func(c ownership.ControlRequest) ownership.ControlRequest { c.Action = "kill"; return c }(good),
		func(c ownership.ControlRequest) ownership.ControlRequest { c.RequestID = ""; return c }(good),
		func(c ownership.ControlRequest) ownership.ControlRequest { c.PID = 0; return c }(good),
		func(c ownership.ControlRequest) ownership.ControlRequest {
			c.Incarnation = ownership.LegacyIncarnation
			return c
		}(good),
		func(c ownership.ControlRequest) ownership.ControlRequest { c.Version = 2; return c }(good),
	} {
		if err := WriteControl(p, c); !errors.Is(err, ownership.ErrInvalidRequest) {
			t.Errorf("WriteControl(%+v) = %v", c, err)
		}
	}
	assertNoLeftovers(t, p)
	if _, err := os.Lstat(p.Control); !os.IsNotExist(err) {
		t.Fatal("an invalid request was written")
	}
	missing := ownership.PathsFor(t.TempDir(), "bot")
	if err := WriteControl(missing, good); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("WriteControl without a daemon directory = %v", err)
	}
}

func TestClearControl(t *testing.T) {
	p := newPaths(t)
	req := ownership.NewControlRequest(ownership.ActionStop, stateOf(4242, "linux:9"), time.Now())
	if err := ClearControl(p, req.RequestID); err != nil {
		t.Fatalf("nothing to clear: %v", err)
	}
	if err := WriteControl(p, req); err != nil {
		t.Fatal(err)
	}
	written := mustRead(t, p.Control)
	err := ClearControl(p, "another-request")
	var changed *ownership.ControlChangedError
	if !errors.As(err, &changed) || changed.Got != req.RequestID || ownership.Reason(err) != ownership.ReasonControlChanged {
		t.Fatalf("ClearControl(other id) = %v", err)
	}
	if !bytes.Equal(mustRead(t, p.Control), written) {
		t.Fatal("another request's file touched")
	}
	if err := ClearControl(p, ""); !errors.Is(err, ownership.ErrInvalidRequest) {
		t.Fatalf("ClearControl(empty) = %v", err)
	}
	if err := ClearControl(p, req.RequestID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p.Control); !os.IsNotExist(err) {
		t.Fatalf("not cleared: %v", err)
	}
	assertNoLeftovers(t, p)
	writeFile(t, p.Control, []byte("garbage"))
	if err := ClearControl(p, req.RequestID); !errors.Is(err, ownership.ErrControlChanged) {
		t.Fatalf("ClearControl(malformed) = %v", err)
	}
	if string(mustRead(t, p.Control)) != "garbage" {
		t.Fatal("malformed request touched")
	}
}

func TestControlAddressed(t *testing.T) {
	p := newPaths(t)
	o, err := Acquire(p, request)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	defer o.Release(nil)
	mine := ownership.NewControlRequest(ownership.ActionStop, o.State(), time.Now())
	if !o.ControlAddressed(mine) {
		t.Fatal("own request not addressed")
	}
	for _, c := range []ownership.ControlRequest{
		func(c ownership.ControlRequest) ownership.ControlRequest { c.OwnerID = "other"; return c }(mine),
		func(c ownership.ControlRequest) ownership.ControlRequest { c.PID++; return c }(mine),
		func(c ownership.ControlRequest) ownership.ControlRequest { c.Incarnation = otherIncarnation; return c }(mine),
		func(c ownership.ControlRequest) ownership.ControlRequest { c.Action = "kill"; return c }(mine),
		func(c ownership.ControlRequest) ownership.ControlRequest { c.Version = 0; return c }(mine),
	} {
		if o.ControlAddressed(c) {
			t.Errorf("addressed: %+v", c)
		}
	}
}
