package demo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/spec"
)

func startTestFakes(t *testing.T) *Fakes {
	t.Helper()
	f, err := StartFakes()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// The written agent dir's spec validates as it is, its secrets resolve to
// the fakes' tokens, and a second run (new ports) replaces it.
func TestWriteAgentDirRunsAsItIs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent")
	for range 2 {
		f := startTestFakes(t)
		specPath, err := WriteAgentDir(f, dir)
		if err != nil {
			t.Fatal(err)
		}
		res := spec.LoadOnce(specPath)
		if !res.Valid() {
			t.Fatalf("the written spec is invalid: %v", res.Errors)
		}
		d, s := res.Lookup("discord"), res.Lookup("slack")
		if d == nil || s == nil {
			t.Fatalf("the written spec has %v", res.Names())
		}
		if d.Config.Discord.BotToken.Reveal() != discordToken || s.Config.Slack.AppToken.Reveal() != slackApp || d.Config.Discord.APIURL != f.Discord.URL() {
			t.Errorf("the spec does not lead to this run's fakes and tokens: %+v", d.Config.Discord)
		}
	}
	for _, p := range []string{dir, filepath.Join(dir, "fake-tokens"), filepath.Join(dir, "fake-tokens", "discord.token")} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: %v, %v: want private", p, fi.Mode(), err)
		}
	}
}

// What WriteAgentDir did not write is refused and left as it is.
func TestWriteAgentDirLeavesWhatIsNotItsOwn(t *testing.T) {
	f := startTestFakes(t)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) (path string)
		says  string
	}{
		{"a spec of somebody's", func(t *testing.T, dir string) string {
			return write(t, filepath.Join(dir, "daemons.yaml"), "apiVersion: x\n")
		}, "was not written by reconciler fakes"},
		{"a real token where a fake one would go", func(t *testing.T, dir string) string {
			if err := os.Mkdir(filepath.Join(dir, "fake-tokens"), 0o700); err != nil {
				t.Fatal(err)
			}
			return write(t, filepath.Join(dir, "fake-tokens", "slack-app.token"), "xapp-real\n")
		}, "was not written by reconciler fakes"},
		{"a spec that is a link", func(t *testing.T, dir string) string {
			target := write(t, filepath.Join(t.TempDir(), "elsewhere.yaml"), specMark)
			link := filepath.Join(dir, "daemons.yaml")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return target
		}, "cannot be read as a file this wrote"},
		{"an agent dir others can write", func(t *testing.T, dir string) string {
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			return write(t, filepath.Join(dir, "daemons.yaml"), specMark)
		}, "writable by group or others"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			before, _ := os.ReadFile(path)
			_, err := WriteAgentDir(f, dir)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("WriteAgentDir: %v, want %q", err, tc.says)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Errorf("%s changed: %q", path, after)
			}
			for _, tok := range Tokens() {
				p := filepath.Join(dir, "fake-tokens", tok.File)
				if _, err := os.Lstat(p); err == nil && p != path {
					t.Errorf("%s was written, though the run was refused", p)
				}
			}
			if tc.name == "a spec of somebody's" {
				if _, err := os.Lstat(filepath.Join(dir, "fake-tokens")); err == nil {
					t.Error("fake-tokens was made, though the run was refused")
				}
			}
		})
	}
}

func write(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
