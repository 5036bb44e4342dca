package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAgentDir(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		ok    bool
		says  string
	}{
		{"a fresh dir", func(*testing.T, string) {}, true, "private to this user"},
		{"records present and private", func(t *testing.T, dir string) {
			mkdirs(t, 0o700, dir, "sdk/daemons/bot", "sdk/bus/bot")
		}, true, "private"},
		{"the agent dir missing", func(t *testing.T, dir string) {
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
		}, true, "the loop makes it, private"},
		{"a bot's outbox writable by others", func(t *testing.T, dir string) {
			mkdirs(t, 0o700, dir, "sdk/bus/bot/outbox")
			if err := os.Chmod(filepath.Join(dir, "sdk/bus/bot/outbox"), 0o777); err != nil {
				t.Fatal(err)
			}
		}, false, "sdk/bus/bot/outbox is writable by group or others"},
		{"an inbox session that is a link", func(t *testing.T, dir string) {
			mkdirs(t, 0o700, dir, "sdk/bus/bot/inbox", "elsewhere")
			if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "sdk/bus/bot/inbox/s1")); err != nil {
				t.Fatal(err)
			}
		}, false, "inbox/s1 is a symbolic link"},
		{"a bot's bus writable by others", func(t *testing.T, dir string) {
			mkdirs(t, 0o700, dir, "sdk/bus")
			mkdirs(t, 0o777, dir, "sdk/bus/bot")
			if err := os.Chmod(filepath.Join(dir, "sdk/bus/bot"), 0o777); err != nil {
				t.Fatal(err)
			}
		}, false, "sdk/bus/bot is writable by group or others"},
		{"a daemon dir that is a link", func(t *testing.T, dir string) {
			mkdirs(t, 0o700, dir, "sdk/daemons", "elsewhere")
			if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "sdk/daemons/bot")); err != nil {
				t.Fatal(err)
			}
		}, false, "sdk/daemons/bot is a symbolic link"},
		{"another bot's dir is not checked", func(t *testing.T, dir string) {
			mkdirs(t, 0o700, dir, "sdk/daemons")
			mkdirs(t, 0o777, dir, "sdk/daemons/other")
			if err := os.Chmod(filepath.Join(dir, "sdk/daemons/other"), 0o777); err != nil {
				t.Fatal(err)
			}
		}, true, "private"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "agent")
			mkdirs(t, 0o700, dir)
			tc.setup(t, dir)
			l := AgentDir(dir, []string{"bot"})
			if l.OK != tc.ok || !strings.Contains(l.Says, tc.says) {
				t.Errorf("%+v, want ok=%v and %q", l, tc.ok, tc.says)
			}
		})
	}
}

func mkdirs(t *testing.T, mode os.FileMode, root string, rel ...string) {
	t.Helper()
	if len(rel) == 0 {
		rel = []string{"."}
	}
	for _, r := range rel {
		if err := os.MkdirAll(filepath.Join(root, r), mode); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoop(t *testing.T) {
	for _, tc := range []struct {
		err  error
		none bool
		unit string
		ok   bool
		says string
	}{
		{nil, false, "", true, "answers on /s"},
		{errors.New("no loop answering"), true, "", true, "no loop runs"},
		{errors.New("no loop answering"), true, "/u/reconciler.service", false, "the service is installed (/u/reconciler.service) but no loop answers"},
		{errors.New("refused the socket /s: it is a symlink"), false, "", false, "symlink"},
	} {
		if l := Loop("/s", tc.err, tc.none, tc.unit); l.OK != tc.ok || !strings.Contains(l.Says, tc.says) {
			t.Errorf("Loop(%v) = %+v", tc.err, l)
		}
	}
}

func TestLingering(t *testing.T) {
	if l := Lingering("me", true, nil); !l.OK {
		t.Errorf("on: %+v", l)
	}
	if l := Lingering("me", false, nil); l.OK || !strings.Contains(l.Says, "sudo loginctl enable-linger me") {
		t.Errorf("off: %+v", l)
	}
	if l := Lingering("me", true, errors.New("boom")); l.OK {
		t.Errorf("error: %+v", l)
	}
}
