// Package systemtest runs the reconciler binary end to end as a system:
// the loop, its daemons and their relays against the local fakes, fleets
// on an embedded etcd, the chaos run and the benchmarks. It builds the
// binary once (TestMain) and knows nothing of package main but its command
// line, its files and its exit codes.
package systemtest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mainPackage is the command these tests run.
const mainPackage = "gjc.dev/reconciler/cmd/reconciler"

// The exit codes the command line promises (docs/operations.md): the tests
// hold the binary to the contract, not to main's constants.
const (
	exitNotDone = 1
	exitInvalid = 2
)

// binary is the reconciler built once for the tests that run it as a real process.
var binary string

func TestMain(m *testing.M) {
	if os.Getenv("CHAOS_CANARY") != "" {
		// The chaos run's canary (TestChaosCanary): it runs no binary.
		flag.Parse()
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "reconciler-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "reconciler")
	// Tests run the race-enabled binary; benchmarks measure the real one.
	flag.Parse()
	build := []string{"build", "-race", "-o", binary, mainPackage}
	if b := flag.Lookup("test.bench"); b != nil && b.Value.String() != "" {
		build = []string{"build", "-o", binary, mainPackage}
	}
	if out, err := exec.Command("go", build...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building reconciler: %v\n%s", err, out)
		os.Exit(1)
	}
	// Other users' runs of the binary (gc as nobody, for EPERM) need to reach it.
	_ = os.Chmod(dir, 0o755)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

func runBinary(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runBinaryStdin(t, env, nil, args...)
}

// runBinaryStdin is runBinary with stdin (nil: none).
func runBinaryStdin(t *testing.T, env []string, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return runCmd(t, cmd)
}

// runCmd runs cmd to its end and returns its exit code and output; only a
// command that could not be run at all fails t.
func runCmd(t testing.TB, cmd *exec.Cmd) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, stdout.String(), stderr.String()}
}

var exampleEnv = []string{"DISCORD_BOT_TOKEN=tok-discord-1", "SLACK_BOT_TOKEN=xoxb-tok-2", "SLACK_APP_TOKEN=xapp-tok-3"}

func TestValidateExample(t *testing.T) {
	r := runBinary(t, exampleEnv, "validate", "--spec", "../../../config/daemons.example.yaml")
	if r.code != 0 || r.stdout != "ok: 2 daemons: discord, slack\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// Global flags are accepted after the subcommand and before it alike.
	r = runBinary(t, exampleEnv, "--spec", "../../../config/daemons.example.yaml", "validate", "-v", "2", "--log-format", "json")
	if r.code != 0 {
		t.Fatalf("flags before the subcommand: exit %d, %q", r.code, r.stderr)
	}
}

func TestValidateUnknownField(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../../config/daemons.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "  discord:\n", "  discrod:\n", 1)
	p := filepath.Join(dir, "daemons.yaml")
	if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, exampleEnv, "validate", "--agent-dir", dir)
	if r.code != 2 {
		t.Fatalf("exit %d, want 2; stdout %q", r.code, r.stdout)
	}
	if want := p + "[0]: spec.discrod: Forbidden: unknown field\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("stdout %q does not contain %q", r.stdout, want)
	}
}

// validate has no side effects: the agent dir is exactly as it was, and a
// missing one is not created.
func TestValidateTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "agent")
	r := runBinary(t, nil, "validate", "--agent-dir", missing)
	if r.code != 2 || !strings.Contains(r.stdout, filepath.Join(missing, "daemons.yaml")+": no such file or directory") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	var entries []string
	_ = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, _ error) error {
		entries = append(entries, p)
		return nil
	})
	if len(entries) != 1 {
		t.Errorf("validate created %v", entries[1:])
	}
}

func TestValidateSecretNotPrinted(t *testing.T) {
	const secret = "s3cret-value-in-a-spec"
	dir := t.TempDir()
	doc := "apiVersion: reconciler.gjc.dev/v1alpha1\nkind: ChatDaemon\nmetadata: {name: a}\nspec:\n  provider: discord\n  discord:\n    botToken: {value: " + secret + "}\n    applicationId: {value: " + secret + "}\n"
	p := filepath.Join(dir, "d.yaml")
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, []string{"TOKEN=" + secret}, "validate", "--spec", p, "-v", "9")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2", r.code)
	}
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Errorf("secret printed:\n%s%s", r.stdout, r.stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"validate", "--bogus"},
		{"validate", "extra-arg"},
		{"no-such-command"},
		{"validate", "--log-format", "xml"},
	} {
		if r := runBinary(t, exampleEnv, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, r.code, r.stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	r := runBinary(t, nil, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "reconciler ") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	if flag := runBinary(t, nil, "--version"); flag.code != 0 || flag.stdout != r.stdout {
		t.Errorf("--version: exit %d, %q; want what version prints, %q", flag.code, flag.stdout, r.stdout)
	}
}

// Shell completion is listed in --help and works.
func TestCompletion(t *testing.T) {
	if r := runBinary(t, nil, "--help"); !strings.Contains(r.stdout, "completion") {
		t.Errorf("--help does not list completion:\n%s", r.stdout)
	}
	if r := runBinary(t, nil, "completion", "bash"); r.code != 0 || !strings.Contains(r.stdout, "bash completion") {
		t.Errorf("completion bash: exit %d, %.80q", r.code, r.stdout)
	}
}
