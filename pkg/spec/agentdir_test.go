package spec

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolveAgentDir(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory to default to: ", err)
	}
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	both := map[string]string{AgentDirEnv: "/a", LegacyAgentDirEnv: "/b"}
	cases := []struct {
		flag string
		env  map[string]string
		want string
	}{
		{"/flag", both, "/flag"},
		{"", both, "/a"},
		{"", map[string]string{LegacyAgentDirEnv: "/b"}, "/b"},
		{"", map[string]string{AgentDirEnv: ""}, filepath.Join(home, ".gjc", "agent")},
	}
	for _, tc := range cases {
		got, err := ResolveAgentDir(tc.flag, env(tc.env))
		if err != nil || got != tc.want {
			t.Errorf("ResolveAgentDir(%q, %v) = %q, %v; want %q", tc.flag, tc.env, got, err, tc.want)
		}
	}
	wd, _ := os.Getwd()
	if got, _ := ResolveAgentDir("rel", env(nil)); got != filepath.Join(wd, "rel") {
		t.Errorf("relative flag resolved to %q, want it made absolute", got)
	}
}

// An agent dir given as a symlink is resolved once, to the dir it names;
// one that cannot be followed is an error that names it.
func TestResolveAgentDirFollowsASymlinkOnce(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	none := func(string) (string, bool) { return "", false }
	if got, err := ResolveAgentDir(link, none); err != nil || got != real {
		t.Errorf("ResolveAgentDir(symlink) = %q, %v; want %q", got, err, real)
	}
	dangling := filepath.Join(base, "dangling")
	if err := os.Symlink(filepath.Join(base, "gone"), dangling); err != nil {
		t.Fatal(err)
	}
	if _, err := ResolveAgentDir(dangling, none); err == nil {
		t.Error("a dangling agent dir symlink was accepted")
	}
}
