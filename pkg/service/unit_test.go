package service

import (
	"encoding/xml"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite config/'s unit and plist from the code")

func TestLoopCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		loop    Loop
		wantErr string
	}{
		{"plain", Loop{Binary: "/usr/bin/reconciler"}, ""},
		{"all set", Loop{Binary: "/b/reconciler", AgentDir: "/home/me/agent", Spec: "/etc/d.yaml"}, ""},
		{"no binary", Loop{}, "no binary"},
		{"relative binary", Loop{Binary: "bin/reconciler"}, `binary "bin/reconciler" is relative`},
		{"relative agent dir", Loop{Binary: "/b", AgentDir: "agent"}, `agent dir "agent" is relative`},
		{"relative spec", Loop{Binary: "/b", Spec: "./d.yaml"}, `spec "./d.yaml" is relative`},
		{"newline", Loop{Binary: "/b", AgentDir: "/a\nb"}, "control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.loop.Check()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Check() = %v, want an error with %q", err, tc.wantErr)
			}
			if _, err := SystemdUnit(tc.loop); err == nil {
				t.Error("SystemdUnit accepted it")
			}
			if _, err := LaunchdPlist(tc.loop, "/Users/me"); err == nil {
				t.Error("LaunchdPlist accepted it")
			}
		})
	}
}

func TestSystemdQuote(t *testing.T) {
	for _, tc := range []struct{ in, exec, arg string }{
		{"/usr/bin/reconciler", "/usr/bin/reconciler", "/usr/bin/reconciler"},
		{"--log-format", "--log-format", "--log-format"},
		{"/home/a b/reconciler", `"/home/a b/reconciler"`, `"/home/a b/reconciler"`},
		{"/x/100%", "/x/100%%", "/x/100%%"},
		{"/x/$HOME", "/x/$HOME", "/x/$$HOME"},
		{`/x/"q"`, "", `"/x/\"q\""`},
		{`/x/back\slash`, "", `"/x/back\\slash"`},
		{"/x/it's", "", `"/x/it's"`},
		{"/x/a;b", "/x/a;b", "/x/a;b"},
		{"", "", `""`},
	} {
		if tc.exec != "" {
			if got := systemdExec(tc.in); got != tc.exec {
				t.Errorf("systemdExec(%q) = %s, want %s", tc.in, got, tc.exec)
			}
		}
		if got := systemdArg(tc.in); got != tc.arg {
			t.Errorf("systemdArg(%q) = %s, want %s", tc.in, got, tc.arg)
		}
	}
}

// TestSystemdRefusesQuotedExecutables: systemd will not run an executable
// whose path has a quote or a backslash, however it is written; say so
// at install, not at the first start.
func TestSystemdRefusesQuotedExecutables(t *testing.T) {
	for _, bin := range []string{`/x/"q"/reconciler`, "/x/it's/reconciler", `/x/back\slash/reconciler`} {
		if _, err := SystemdUnit(Loop{Binary: bin}); err == nil || !strings.Contains(err.Error(), "systemd refuses") {
			t.Errorf("SystemdUnit(%q) = %v, want systemd's refusal", bin, err)
		}
	}
}

// trickyDirs are directory names a user may have, each needing quoting or
// escaping in a unit or a plist.
var trickyDirs = []string{"plain", "with space", "per%cent", "dollar$HOME", `dq"uote`, "it's", `back\slash`, "amp&lt<gt>", "semi;colon"}

// TestSystemdUnitVerifies has systemd read back each unit: verify checks
// that ExecStart's binary exists and is executable, so a path it reads
// otherwise than written fails. A unit with the path written unescaped
// must fail, or the check proves nothing.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze := requireSystemdAnalyze(t)
	for _, name := range trickyDirs {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			bin := executable(t, filepath.Join(dir, "bin"+strings.NewReplacer(`"`, "", "'", "", `\`, "").Replace(name), "reconciler"))
			unit, err := SystemdUnit(Loop{Binary: bin, AgentDir: filepath.Join(dir, name, "agent"), Spec: filepath.Join(dir, name, "d.yaml")})
			if err != nil {
				t.Fatal(err)
			}
			if err := verifyUnit(t, analyze, unit); err != nil {
				t.Fatalf("systemd-analyze verify: %v\n%s", err, unit)
			}
			if systemdExec(bin) == bin {
				return
			}
			naive := strings.Replace(unit, "ExecStart="+systemdExec(bin), "ExecStart="+bin, 1)
			if err := verifyUnit(t, analyze, naive); err == nil {
				t.Errorf("systemd-analyze verify accepts ExecStart=%s unescaped: the test cannot tell", bin)
			}
		})
	}
}

func TestLaunchdPlistEscapes(t *testing.T) {
	for _, name := range trickyDirs {
		l := Loop{Binary: "/Users/me/" + name + "/reconciler", AgentDir: "/Users/me/" + name + "/agent"}
		home := "/Users/" + name
		plist, err := LaunchdPlist(l, home)
		if err != nil {
			t.Fatal(err)
		}
		args, log := decodePlist(t, plist)
		if !reflect.DeepEqual(args, l.Args()) {
			t.Errorf("%s: ProgramArguments read back as %q, want %q", name, args, l.Args())
		}
		if want := home + "/Library/Logs/reconciler.log"; log != want {
			t.Errorf("%s: StandardErrorPath read back as %q, want %q", name, log, want)
		}
	}
}

// TestShippedFilesAreGenerated keeps config/ the code's output for
// placeholder paths: the unit as the .deb installs it, the plist for a
// go install on a Mac.
func TestShippedFilesAreGenerated(t *testing.T) {
	unit, err := SystemdUnit(Loop{Binary: "/usr/bin/reconciler"})
	if err != nil {
		t.Fatal(err)
	}
	plist, err := LaunchdPlist(Loop{Binary: "/Users/YOU/go/bin/reconciler"}, "/Users/YOU")
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"reconciler.service": unit, Label + ".plist": plist} {
		path := filepath.Join("..", "..", "config", file)
		if *update {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("config/%s is not what the code generates; run go test ./pkg/service -update and review the diff", file)
		}
	}
}

func requireSystemdAnalyze(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian: apt-get install systemd): the unit cannot be verified here")
	}
	return path
}

// verifyUnit runs systemd-analyze verify on unit as reconciler.service, in
// the user manager's mode; with no user session, a runtime dir of its own.
func verifyUnit(t *testing.T, analyze, unit string) error {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, UnitName)
	if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	runtime := filepath.Join(dir, "runtime")
	if err := os.Mkdir(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(analyze, "--user", "verify", path)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtime)
	out, err := cmd.CombinedOutput()
	return judgeSystemdVerify(string(out), err, path)
}

func executable(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// decodePlist reads ProgramArguments and StandardErrorPath back as an XML
// parser does.
func decodePlist(t *testing.T, plist string) (args []string, log string) {
	t.Helper()
	var doc struct {
		Dict struct {
			Items []struct {
				XMLName xml.Name
				Text    string   `xml:",chardata"`
				Strings []string `xml:"string"`
			} `xml:",any"`
		} `xml:"dict"`
	}
	dec := xml.NewDecoder(strings.NewReader(plist))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("the plist does not parse: %v\n%s", err, plist)
	}
	key := ""
	for _, it := range doc.Dict.Items {
		switch {
		case it.XMLName.Local == "key":
			key = it.Text
		case key == "ProgramArguments":
			args = it.Strings
		case key == "StandardErrorPath":
			log = it.Text
		}
		if it.XMLName.Local != "key" {
			key = ""
		}
	}
	return args, log
}

func TestGoRunBuild(t *testing.T) {
	for path, want := range map[string]bool{
		"/tmp/go-build732254897/b001/exe/reconciler":    true,
		"/home/me/.cache/go-build1/b001/exe/reconciler": true,
		"/home/me/go/bin/reconciler":                    false,
		"/usr/bin/reconciler":                           false,
		"/home/me/exe/reconciler":                       false,
	} {
		if got := GoRunBuild(path); got != want {
			t.Errorf("GoRunBuild(%s) = %v, want %v", path, got, want)
		}
	}
}
