package systemtest

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/reconcile"
)

// Nothing send queues vanishes without a word (DESIGN 5), through a
// running loop and a daemon posting to the fake: an id the relay would
// never read is refused before anything is written; an info message a
// lean daemon leaves out is written, said on stderr, and counted as
// filtered in status, describe and the metrics; a message for a session
// the relay closed is refused naming when, and one dropped by hand goes
// to failed/ with that reason.
func TestSendSaysWhatWillNotBePosted(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1}) // verbosity: lean, the default
	loop := e.startLoop("--metrics-addr", "127.0.0.1:0")
	url := "http://" + metricsAddress(t, loop) + "/metrics"
	e.waitStatus("discord ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	send := func(args ...string) result {
		return runBinary(t, nil, append(append([]string{"send", "discord"}, args...), "--agent-dir", e.agentDir)...)
	}
	d, err := bus.Paths(e.agentDir, "discord")
	if err != nil {
		t.Fatal(err)
	}

	// Ids whose file would be a producer's temp file: exit 2, nothing written.
	for _, id := range []string{".x", ".", ".."} {
		r := send("--session", "s1", "--id", id, "--level", "action", "hi")
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "id: "+bus.IDRule) {
			t.Errorf("send --id %q: exit %d, stdout %q, stderr %q; want 2 naming the id rule", id, r.code, r.stdout, r.stderr)
		}
	}
	if names := e.outboxOf("discord"); len(names) != 0 {
		t.Fatalf("outbox and sent/ after the refused ids: %v, want nothing", names)
	}

	if r := send("--session", "s1", "--event", "open", "--title", "Build 7"); r.code != 0 || r.stderr != "" {
		t.Fatalf("open: exit %d, stderr %q", r.code, r.stderr)
	}
	r := send("--session", "s1", "--id", "chatter-1", "compiling")
	if r.code != 0 || r.stdout != "chatter-1\n" || !strings.Contains(r.stderr, "discord has verbosity: lean, which leaves info messages out: this one is not posted") {
		t.Fatalf("an info message under lean: exit %d, stdout %q, stderr %q; want 0 and a word on stderr", r.code, r.stdout, r.stderr)
	}
	e.waitStatus("the info message counted as filtered", func(s *reconcile.Status) bool {
		st, _ := daemonStatus(s, "discord")
		return st.Relay != nil && st.Relay.Filtered == 1 && st.Relay.Pending == 0
	})
	if got := wideCell(t, runBinary(t, nil, "status", "discord", "-o", "wide", "--agent-dir", e.agentDir), "FILTERED"); got != "1" {
		t.Errorf("status -o wide: FILTERED %q, want 1", got)
	}
	desc := runBinary(t, nil, "describe", "discord", "--agent-dir", e.agentDir)
	if desc.code != 0 || !regexp.MustCompile(`Filtered:\s+1 since the daemon started`).MatchString(desc.stdout) {
		t.Errorf("describe: exit %d, want the filtered count:\n%s%s", desc.code, desc.stdout, desc.stderr)
	}
	waitMetrics(t, url, "the filtered counter", func(m metricSet) bool {
		return m.is("reconciler_relay_filtered_total", "name=discord,provider=discord", 1)
	})

	if r := send("--session", "s1", "--id", "close-1", "--event", "close"); r.code != 0 {
		t.Fatalf("close: exit %d, stderr %q", r.code, r.stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	waitDirEvents(t, ctx, d.Sent, func() bool { return exists(t, filepath.Join(d.Sent, "close-1.json")) }, "the close posted")

	closedAt := `session s1 was closed at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`
	r = send("--session", "s1", "--id", "late-1", "--level", "action", "one more thing")
	if r.code != 1 || r.stdout != "" || !regexp.MustCompile(`"late-1": `+closedAt).MatchString(r.stderr) {
		t.Errorf("a message for the closed session: exit %d, stdout %q, stderr %q; want 1 naming the session and when it closed", r.code, r.stdout, r.stderr)
	}
	if exists(t, filepath.Join(d.Outbox, "late-1.json")) {
		t.Error("the refused message was written")
	}
	if r := send("--session", "s1", "--id", "close-1", "--event", "close"); r.code != 0 {
		t.Errorf("the same close again: exit %d, stderr %q; want 0", r.code, r.stderr)
	}

	// Dropped by hand, past send: failed/, with the same reason.
	if _, err := bus.Write(d.Outbox, bus.Message{ID: "hand-1", Session: "s1", Text: "by hand", Level: bus.LevelAction}); err != nil {
		t.Fatal(err)
	}
	failed := filepath.Join(d.Failed, "hand-1.json")
	waitDirEvents(t, ctx, d.Failed, func() bool { return exists(t, failed) }, "the hand-dropped message failed")
	data, err := os.ReadFile(failed)
	if err != nil {
		t.Fatal(err)
	}
	var rec bus.FailedRecord
	if err := json.Unmarshal(data, &rec); err != nil || !regexp.MustCompile(closedAt).MatchString(rec.Reason) {
		t.Errorf("failed/hand-1.json: reason %q (%v), want it naming the session and when it closed", rec.Reason, err)
	}
}

// exists reports whether path is there (any kind of entry).
func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Lstat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// wideCell is column col of the one daemon row of a `status -o wide`
// table (every cell before MESSAGE is one word).
func wideCell(t *testing.T, r result, col string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) < 2 {
		t.Fatalf("status -o wide: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	head, row := strings.Fields(lines[0]), strings.Fields(lines[1])
	i := slices.Index(head, col)
	if i < 0 || i >= len(row) {
		t.Fatalf("status -o wide: no %s column:\n%s", col, r.stdout)
	}
	return row[i]
}
