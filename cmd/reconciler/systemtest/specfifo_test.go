package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/reconcile"
)

// runWithin runs the binary and fails the test if it has not exited by the
// deadline (it is killed then): a command that blocks on a spec file must
// show up as a failure, not as a hung test run.
func runWithin(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v did not finish within %v\nstdout: %s\nstderr: %s", args, e2eDeadline, stdout.String(), stderr.String())
	}
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, stdout.String(), stderr.String()}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A FIFO as the spec file: validate, --once and status answer at once with
// what the file is; validate and --once exit 2 touching nothing.
func TestSpecFileFIFO(t *testing.T) {
	t.Parallel()
	agentDir := t.TempDir()
	fifo := filepath.Join(agentDir, "daemons.yaml")
	mkfifo(t, fifo)
	want := fifo + ": not a regular file (a named pipe)"
	for _, args := range [][]string{{"validate"}, {"--once"}} {
		r := runWithin(t, exampleEnv, append(args, "--agent-dir", agentDir)...)
		if r.code != 2 || !strings.Contains(r.stdout, want+"\n") {
			t.Errorf("%v: exit %d, stdout %q; want exit 2 and %q", args, r.code, r.stdout, want)
		}
	}
	r := runWithin(t, exampleEnv, "status", "-o", "json", "--agent-dir", agentDir)
	var st reconcile.Status
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("status: exit %d, %v: %q %q", r.code, err, r.stdout, r.stderr)
	}
	if st.SpecValid || !slices.Contains(st.SpecErrors, want) {
		t.Errorf("status: specValid %v, errors %q; want %q", st.SpecValid, st.SpecErrors, want)
	}
	entries, err := os.ReadDir(agentDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("an invalid spec touched the agent dir: %v", entries)
	}
}

// A FIFO in a --spec dir and a FIFO as a fromFile secret are spec errors
// like any other, found without blocking.
func TestSpecDirAndSecretFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile("../../../config/daemons.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "b.yaml")
	mkfifo(t, fifo)
	r := runWithin(t, exampleEnv, "validate", "--spec", dir)
	if want := fifo + ": not a regular file (a named pipe)\n"; r.code != 2 || !strings.Contains(r.stdout, want) {
		t.Errorf("FIFO in a spec dir: exit %d, stdout %q; want exit 2 and %q", r.code, r.stdout, want)
	}

	secretDir := t.TempDir()
	mkfifo(t, filepath.Join(secretDir, "discord.token"))
	spec := strings.Replace(string(data), "{fromEnv: DISCORD_BOT_TOKEN}", "{fromFile: discord.token}", 1)
	if spec == string(data) {
		t.Fatal("the example no longer names DISCORD_BOT_TOKEN")
	}
	p := filepath.Join(secretDir, "daemons.yaml")
	if err := os.WriteFile(p, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runWithin(t, exampleEnv, "validate", "--spec", p)
	if want := `fromFile: Invalid value: "discord.token": is not a regular file (a named pipe)`; r.code != 2 || !strings.Contains(r.stdout, want) {
		t.Errorf("FIFO as a fromFile secret: exit %d, stdout %q; want exit 2 and %q", r.code, r.stdout, want)
	}
}

// A FIFO appearing in the loop's spec dir is reported as a spec error; the
// loop keeps reading the spec and the daemons keep running.
func TestLoopSpecDirFIFO(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	specDir := filepath.Join(e.agentDir, "specs")
	if err := os.Mkdir(specDir, 0o700); err != nil {
		t.Fatal(err)
	}
	e.specPath = filepath.Join(specDir, "bots.yaml")
	e.writeSpec(bothBots...)
	e.startLoop("--spec", specDir)
	e.waitStatus("both ready", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	before := map[string]string{"discord": e.state("discord").OwnerID, "slack": e.state("slack").OwnerID}

	fifo := filepath.Join(specDir, "more.yaml")
	mkfifo(t, fifo)
	want := fifo + ": not a regular file (a named pipe)"
	st := e.waitStatus("the FIFO reported", func(s *reconcile.Status) bool { return slices.Contains(s.SpecErrors, want) })
	if st.SpecValid || countReady(st) != 2 {
		t.Errorf("specValid %v, %d ready; want invalid with both daemons kept", st.SpecValid, countReady(st))
	}
	for name, owner := range before {
		if cur := e.state(name); cur.OwnerID != owner || cur.StoppedAt != nil {
			t.Errorf("%s was touched because of a FIFO in the spec dir: %+v", name, cur)
		}
	}
}
