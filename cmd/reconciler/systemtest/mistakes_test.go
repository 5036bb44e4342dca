package systemtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A mistyped --agent-dir is an error naming the dir, exit 2, never an
// empty table and exit 0; so is a dir that holds nothing of a reconciler's.
func TestStatusOnAnAgentDirThatIsNoneIsAnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	typo := filepath.Join(dir, "agnet")
	for _, args := range [][]string{{"status"}, {"status", "-o", "json"}, {"events"}, {"describe", "d1"}, {"gc"}} {
		r := runBinary(t, nil, append(args, "--agent-dir", typo)...)
		if r.code != exitInvalid || !strings.Contains(r.stderr, "agent dir "+typo+" does not exist (--agent-dir)") || strings.Contains(r.stdout, "NAME") {
			t.Errorf("%v on a dir that does not exist: exit %d, stdout %q, stderr %q; want exit 2 naming the dir", args, r.code, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(typo); err == nil {
		t.Errorf("a command that only looks made the mistyped agent dir %s", typo)
	}
	r := runBinary(t, []string{"RECONCILER_AGENT_DIR=" + dir}, "status")
	if r.code != exitInvalid || !strings.Contains(r.stderr, dir+" is not an agent dir") || !strings.Contains(r.stderr, "$RECONCILER_AGENT_DIR") {
		t.Errorf("status on a dir with no sdk/ and no spec: exit %d, stderr %q; want exit 2 saying it is not an agent dir, from the variable", r.code, r.stderr)
	}
}

// status run without the --spec the loop was given reads the agent dir's
// daemons.yaml, which is not there: it says which file it looked for and
// exits 2 (an invalid spec), not "1 error(s)" and exit 0.
func TestStatusWithoutItsSpecNamesTheMissingFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sdk", "reconciler"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, nil, "status", "--agent-dir", dir)
	want := filepath.Join(dir, "daemons.yaml") + ": no such file or directory"
	if r.code != exitInvalid || !strings.Contains(r.stdout, want) {
		t.Errorf("status with no spec: exit %d, stdout %q; want exit 2 and %q", r.code, r.stdout, want)
	}
}

// status -w says when the spec turns invalid, and when it is valid again.
func TestStatusWatchSaysTheSpecIsValidAgain(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	if err := os.WriteFile(e.specPath, []byte("apiVersion: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, e)
	seen := func(string) {}
	w.next(t, "spec invalid", seen, func(f []string) bool { return strings.HasPrefix(strings.Join(f, " "), "spec invalid:") })
	e.writeSpec(object{name: "d1", provider: "discord", generation: 1, state: "Stopped"})
	w.next(t, "spec valid again", seen, func(f []string) bool { return strings.HasPrefix(strings.Join(f, " "), "spec valid again") })
}
