package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONAndVerbosity(t *testing.T) {
	var buf bytes.Buffer
	log, err := New(&buf, FormatAuto, 1)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("shown", "name", "discord")
	log.V(1).Info("also shown")
	log.V(2).Info("hidden")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2 (V(2) hidden at -v 1):\n%s", len(lines), buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("a buffer is not a terminal, so the format must be JSON: %v", err)
	}
	if rec["msg"] != "shown" || rec["name"] != "discord" {
		t.Errorf("record = %v", rec)
	}
}

func TestConsole(t *testing.T) {
	var buf bytes.Buffer
	log, err := New(&buf, FormatConsole, 0)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("hello", "k", "v")
	if got := buf.String(); !strings.Contains(got, "hello") || strings.HasPrefix(got, "{") {
		t.Errorf("console line = %q", got)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := New(&bytes.Buffer{}, "xml", 0); err == nil || !strings.Contains(err.Error(), `log format "xml"`) {
		t.Errorf("err = %v", err)
	}
	if _, err := New(&bytes.Buffer{}, FormatJSON, -1); err == nil {
		t.Error("negative verbosity accepted")
	}
}
