package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/service"
)

// TestServiceInstallDryRunVerifies: service install --dry-run prints the
// unit for this binary and the agent dir, and systemd accepts that unit
// as printed.
func TestServiceInstallDryRunVerifies(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	agentDir := filepath.Join(t.TempDir(), "my agent")
	if err := os.Mkdir(agentDir, 0o700); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"service", "install", "--dry-run", "--agent-dir", agentDir}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	parts := strings.Split(stdout.String(), "-----\n")
	if len(parts) != 3 {
		t.Fatalf("no fenced unit in:\n%s", stdout.String())
	}
	unit := parts[1]
	if !strings.Contains(unit, `--agent-dir "`+agentDir+`"`) {
		t.Errorf("the unit does not name the agent dir %q:\n%s", agentDir, unit)
	}
	unitPath := filepath.Join(home, ".config", "systemd", "user", "reconciler.service")
	if !strings.Contains(stdout.String(), "would write "+unitPath+":\n") {
		t.Errorf("--dry-run does not say it would write %s:\n%s", unitPath, stdout.String())
	}
	if _, err := os.Stat(unitPath); err == nil {
		t.Errorf("--dry-run wrote %s", unitPath)
	}
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed (Debian: apt-get install systemd): the unit cannot be verified here")
	}
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		runtime := filepath.Join(t.TempDir(), "runtime")
		if err := os.Mkdir(runtime, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Setenv("XDG_RUNTIME_DIR", runtime)
	}
	// The manager only for its checker: the content checked is the printed unit.
	m, err := service.Systemd(service.Loop{Binary: "/bin/true"}, home)
	if err != nil {
		t.Fatal(err)
	}
	m.Content = unit
	h := service.Host{Run: service.ExecRunner{}, LookPath: exec.LookPath, Out: io.Discard}
	if err := service.Verify(context.Background(), h, m); err != nil {
		t.Fatalf("the unit --dry-run printed does not verify: %v\n%s", err, unit)
	}
}

func TestServiceRefusesAnAgentDirItCannotName(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, tc := range []struct {
		name, agentDir, want string
	}{
		{"relative", "agent", `agent dir "agent" is relative`},
		{"missing", filepath.Join(t.TempDir(), "nowhere"), "does not exist: create it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"service", "install", "--dry-run", "--agent-dir", tc.agentDir}, &stdout, &stderr)
			if code != exitInvalid || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), exitInvalid, tc.want)
			}
		})
	}
}
