package service

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeRunner records what it is asked to run and answers from a table.
type fakeRunner struct {
	ran     []string
	answers map[string]fakeAnswer
}

type fakeAnswer struct {
	out string
	err error
}

func (f *fakeRunner) Run(_ context.Context, argv []string) (string, error) {
	cmd := strings.Join(argv, " ")
	if strings.HasPrefix(cmd, "systemd-analyze --user verify ") {
		cmd = "systemd-analyze --user verify COPY"
	}
	f.ran = append(f.ran, cmd)
	a := f.answers[cmd]
	return a.out, a.err
}

func testHost(run *fakeRunner, lingering bool, tools ...string) (Host, *bytes.Buffer) {
	out := &bytes.Buffer{}
	return Host{
		Run: run,
		LookPath: func(file string) (string, error) {
			for _, t := range tools {
				if t == file {
					return "/usr/bin/" + file, nil
				}
			}
			return "", exec.ErrNotFound
		},
		Out:       out,
		User:      "me",
		Lingering: func() (bool, error) { return lingering, nil },
	}, out
}

func testSystemd(t *testing.T, agentDir string) Manager {
	t.Helper()
	m, err := Systemd(Loop{Binary: "/usr/local/bin/reconciler", AgentDir: agentDir}, filepath.Join(t.TempDir(), "config"))
	if err != nil {
		t.Fatal(err)
	}
	m.Packaged = filepath.Join(t.TempDir(), "usr-lib", UnitName) // absent until a test writes it
	return m
}

func TestSystemdInstallRunsTheExpectedCommands(t *testing.T) {
	ctx := context.Background()
	m := testSystemd(t, "/home/me/agent")
	run := &fakeRunner{}
	h, out := testHost(run, false, "systemd-analyze")
	if err := Install(ctx, h, m, false); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"systemd-analyze --user verify COPY",
		"systemctl --user daemon-reload",
		"systemctl --user enable --now reconciler.service",
	}
	if !reflect.DeepEqual(run.ran, want) {
		t.Fatalf("ran %q, want %q", run.ran, want)
	}
	if got, err := os.ReadFile(m.File); err != nil || string(got) != m.Content {
		t.Fatalf("%s holds %q (%v), want the unit", m.File, got, err)
	}
	if !strings.Contains(out.String(), "sudo loginctl enable-linger me") {
		t.Errorf("lingering is off, and install does not say how to turn it on:\n%s", out)
	}

	// The same unit again: nothing to restart.
	run.ran = nil
	if err := Install(ctx, h, m, false); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(run.ran, want) {
		t.Fatalf("reinstalling the same unit ran %q, want %q", run.ran, want)
	}

	// A changed unit: a running loop restarts onto it.
	run.ran = nil
	changed := testSystemd(t, "/home/me/other-agent")
	changed.File = m.File
	if err := Install(ctx, h, changed, false); err != nil {
		t.Fatal(err)
	}
	if want := append(want, "systemctl --user try-restart reconciler.service"); !reflect.DeepEqual(run.ran, want) {
		t.Fatalf("replacing the unit ran %q, want %q", run.ran, want)
	}
}

func TestInstallWithoutTheCheckerSaysSo(t *testing.T) {
	m := testSystemd(t, "")
	run := &fakeRunner{}
	h, out := testHost(run, true)
	if err := Install(context.Background(), h, m, false); err != nil {
		t.Fatal(err)
	}
	if len(run.ran) != 2 || !strings.Contains(out.String(), "systemd-analyze not found") {
		t.Errorf("ran %q, printed:\n%s\nwant the two systemctl commands and a word that nothing was checked", run.ran, out)
	}
	if !strings.Contains(out.String(), "lingering: on for me") {
		t.Errorf("lingering is on, and install does not say so:\n%s", out)
	}
}

func TestInstallRefusedByTheCheckerInstallsNothing(t *testing.T) {
	m := testSystemd(t, "")
	run := &fakeRunner{answers: map[string]fakeAnswer{
		"systemd-analyze --user verify COPY": {out: "/tmp/x/reconciler.service:3: Unknown key 'Bogus' in section [Service], ignoring.\n"},
	}}
	h, _ := testHost(run, true, "systemd-analyze")
	err := Install(context.Background(), h, m, false)
	if err == nil || !strings.Contains(err.Error(), "Unknown key") || !strings.Contains(err.Error(), "nothing installed") {
		t.Fatalf("Install = %v, want the checker's complaint", err)
	}
	if _, err := os.Stat(m.File); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s was written after the check failed (%v)", m.File, err)
	}
	if len(run.ran) != 1 {
		t.Errorf("ran %q after the check failed", run.ran)
	}
}

func TestInstallStopsAtAFailingCommand(t *testing.T) {
	m := testSystemd(t, "")
	run := &fakeRunner{answers: map[string]fakeAnswer{
		"systemctl --user daemon-reload": {out: "Failed to connect to bus: No medium found\n", err: errors.New("exit status 1")},
	}}
	h, _ := testHost(run, true)
	err := Install(context.Background(), h, m, false)
	if err == nil || !strings.Contains(err.Error(), "Failed to connect to bus") || !strings.Contains(err.Error(), "systemctl --user daemon-reload") || !strings.Contains(err.Error(), "not under su or sudo") {
		t.Fatalf("Install = %v, want the failing command and its output", err)
	}
	if len(run.ran) != 1 {
		t.Errorf("ran %q after a failure", run.ran)
	}
}

// TestInstallDryRun: nothing runs, nothing is written, and the unit it
// prints is the one it would write, which systemd accepts.
func TestInstallDryRun(t *testing.T) {
	bin := executable(t, filepath.Join(t.TempDir(), "my bin", "reconciler"))
	m, err := Systemd(Loop{Binary: bin, AgentDir: "/home/me/agent 2"}, filepath.Join(t.TempDir(), "config"))
	if err != nil {
		t.Fatal(err)
	}
	run := &fakeRunner{}
	h, out := testHost(run, false, "systemd-analyze")
	if err := Install(context.Background(), h, m, true); err != nil {
		t.Fatal(err)
	}
	if len(run.ran) != 0 {
		t.Fatalf("--dry-run ran %q", run.ran)
	}
	if _, err := os.Stat(m.File); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("--dry-run wrote %s (%v)", m.File, err)
	}
	unit := dryRunFile(t, out.String())
	if unit != m.Content {
		t.Fatalf("--dry-run printed\n%s\nwant\n%s", unit, m.Content)
	}
	for _, cmd := range []string{"systemd-analyze --user verify <a copy in a temp dir>/reconciler.service", "systemctl --user daemon-reload", "systemctl --user enable --now reconciler.service", "sudo loginctl enable-linger me"} {
		if !strings.Contains(out.String(), "  "+cmd+"\n") {
			t.Errorf("--dry-run does not show %q:\n%s", cmd, out)
		}
	}
	if err := verifyUnit(t, requireSystemdAnalyze(t), unit); err != nil {
		t.Fatalf("the unit --dry-run printed does not verify: %v", err)
	}
}

// dryRunFile cuts the file out of --dry-run's output.
func dryRunFile(t *testing.T, out string) string {
	t.Helper()
	parts := strings.Split(out, dryRunFence)
	if len(parts) != 3 {
		t.Fatalf("--dry-run's output has no fenced file:\n%s", out)
	}
	return parts[1]
}

func TestSystemdUninstall(t *testing.T) {
	ctx := context.Background()
	m := testSystemd(t, "")
	run := &fakeRunner{}
	h, out := testHost(run, true, "systemd-analyze")
	if err := Uninstall(ctx, h, m, false); err != nil {
		t.Fatal(err)
	}
	if len(run.ran) != 0 || !strings.Contains(out.String(), "not installed") {
		t.Fatalf("uninstalling nothing ran %q and printed %q", run.ran, out)
	}
	if err := Install(ctx, h, m, false); err != nil {
		t.Fatal(err)
	}
	run.ran = nil
	if err := Uninstall(ctx, h, m, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.File); err != nil || len(run.ran) != 0 {
		t.Fatalf("--dry-run uninstall ran %q or removed the unit (%v)", run.ran, err)
	}
	if err := Uninstall(ctx, h, m, false); err != nil {
		t.Fatal(err)
	}
	want := []string{"systemctl --user disable --now reconciler.service", "systemctl --user daemon-reload"}
	if !reflect.DeepEqual(run.ran, want) {
		t.Fatalf("uninstall ran %q, want %q", run.ran, want)
	}
	if _, err := os.Stat(m.File); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("uninstall left %s (%v)", m.File, err)
	}
}

func TestSystemdStatus(t *testing.T) {
	ctx := context.Background()
	m := testSystemd(t, "")
	inactive := &fakeRunner{answers: map[string]fakeAnswer{
		"systemctl --user is-enabled reconciler.service": {out: "disabled\n", err: errors.New("exit status 1")},
		"systemctl --user is-active reconciler.service":  {out: "inactive\n", err: errors.New("exit status 3")},
	}}
	h, out := testHost(inactive, false)
	ok, err := Status(ctx, h, m)
	if err != nil || ok {
		t.Fatalf("Status = %v, %v for a missing unit, want false", ok, err)
	}
	for _, line := range []string{"(not installed)", "enabled   disabled", "active    inactive", "lingering: off"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("status does not say %q:\n%s", line, out)
		}
	}
	if err := Install(ctx, h, m, false); err != nil {
		t.Fatal(err)
	}
	running := &fakeRunner{answers: map[string]fakeAnswer{
		"systemctl --user is-enabled reconciler.service": {out: "enabled\n"},
		"systemctl --user is-active reconciler.service":  {out: "active\n"},
	}}
	h, out = testHost(running, true)
	if ok, err := Status(ctx, h, m); err != nil || !ok {
		t.Fatalf("Status = %v, %v for a running unit, want true:\n%s", ok, err, out)
	}
}

func TestLaunchdCommands(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	m, err := Launchd(Loop{Binary: "/usr/local/bin/reconciler", AgentDir: home + "/agent"}, home, 501)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "Library", "LaunchAgents", "dev.gjc.reconciler.plist"); m.File != want {
		t.Fatalf("plist at %s, want %s", m.File, want)
	}
	run := &fakeRunner{answers: map[string]fakeAnswer{
		"launchctl bootout gui/501/dev.gjc.reconciler": {out: "Boot-out failed: 3: No such process\n", err: errors.New("exit status 3")},
	}}
	h, _ := testHost(run, false, "plutil")
	h.Lingering = nil
	if err := Install(ctx, h, m, false); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"plutil -lint COPY",
		"launchctl bootout gui/501/dev.gjc.reconciler",
		"launchctl enable gui/501/dev.gjc.reconciler",
		"launchctl bootstrap gui/501 " + m.File,
	}
	if len(run.ran) != len(want) || !strings.HasPrefix(run.ran[0], "plutil -lint ") || !reflect.DeepEqual(run.ran[1:], want[1:]) {
		t.Fatalf("ran %q, want %q", run.ran, want)
	}
	run.ran = nil
	if err := Uninstall(ctx, h, m, false); err != nil {
		t.Fatal(err)
	}
	if want := []string{"launchctl bootout gui/501/dev.gjc.reconciler"}; !reflect.DeepEqual(run.ran, want) {
		t.Fatalf("uninstall ran %q, want %q", run.ran, want)
	}
}

func TestJudgeSystemdVerify(t *testing.T) {
	const file = "/tmp/x/reconciler.service"
	for _, tc := range []struct {
		name, out string
		err       error
		wantErr   string
	}{
		{"clean", "", nil, ""},
		{"another unit's noise", "default.target: some warning\n", nil, ""},
		{"unknown key, exit 0", "/tmp/x/reconciler.service:3: Unknown key 'Bogus' in section [Service], ignoring.\n", nil, "Unknown key"},
		{"missing binary", "reconciler.service: Command /x is not executable: No such file or directory\n", errors.New("exit status 1"), "not executable"},
		{"no manager", "Failed to initialize manager: No such device or address\n", errors.New("exit status 1"), "Failed to initialize manager"},
	} {
		err := judgeSystemdVerify(tc.out, tc.err, file)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: judge = %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestAnswers(t *testing.T) {
	exit := errors.New("exit status 3")
	for _, tc := range []struct {
		name, got, want string
	}{
		{"is-active", firstWord("inactive\n", exit), "inactive"},
		{"is-enabled", firstWord("enabled\n", nil), "enabled"},
		{"no output", firstWord("", exit), "unknown: exit status 3"},
		{"no bus", firstWord("Failed to connect to bus: No such file or directory\n", exit), "unknown: Failed to connect to bus: No such file or directory"},
		{"running", launchdState("gui/501/dev.gjc.reconciler = {\n\tactive count = 1\n\tstate = running\n\tendpoints = {\n\t\tstate = active\n", nil), "running"},
		{"not running", launchdState("gui/501/dev.gjc.reconciler = {\n\tstate = not running\n", nil), "not running"},
		{"not loaded", launchdState("Could not find service", exit), "not loaded"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

func TestShellWords(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"systemctl", "--user", "enable", "--now", "reconciler.service"}, "systemctl --user enable --now reconciler.service"},
		{[]string{"rm", "/home/a b/it's"}, `rm '/home/a b/it'\''s'`},
		{[]string{"echo", "$HOME", ""}, `echo '$HOME' ''`},
	} {
		if got := ShellWords(tc.in); got != tc.want {
			t.Errorf("ShellWords(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestStatusSeesThePackagedUnit: a .deb user who enabled the packaged unit
// has it installed, though not in their own config; uninstall leaves the
// package's file alone and says how to stop using it.
func TestStatusSeesThePackagedUnit(t *testing.T) {
	ctx := context.Background()
	m := testSystemd(t, "")
	if err := os.MkdirAll(filepath.Dir(m.Packaged), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.Packaged, []byte(m.Content), 0o644); err != nil {
		t.Fatal(err)
	}
	running := &fakeRunner{answers: map[string]fakeAnswer{
		"systemctl --user is-enabled reconciler.service": {out: "enabled\n"},
		"systemctl --user is-active reconciler.service":  {out: "active\n"},
	}}
	h, out := testHost(running, true)
	if ok, err := Status(ctx, h, m); err != nil || !ok {
		t.Fatalf("Status = %v, %v, want true:\n%s", ok, err, out)
	}
	if want := m.Packaged + " (installed by the package)"; !strings.Contains(out.String(), want) {
		t.Errorf("status does not say %q:\n%s", want, out)
	}
	out.Reset()
	running.ran = nil
	if err := Uninstall(ctx, h, m, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.Packaged); err != nil || len(running.ran) != 0 {
		t.Fatalf("uninstall touched the package's unit (%v) or ran %q", err, running.ran)
	}
	if !strings.Contains(out.String(), "systemctl --user disable --now reconciler.service") {
		t.Errorf("uninstall does not say how to stop using the package's unit:\n%s", out)
	}
}
