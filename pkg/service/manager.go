package service

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Cmd is one command a service manager is asked to run.
type Cmd struct {
	Argv []string
	// MayFail marks a command whose failure leaves nothing undone, such as
	// unloading an agent that was not loaded.
	MayFail bool
}

// Query asks the service manager one thing for status.
type Query struct {
	Label string
	Argv  []string
	// Want is the answer of an installed, running loop.
	Want string
	// Answer reads the command's output and error into one word.
	Answer func(out string, err error) string
}

// Manager is everything one service manager needs to install the loop,
// remove it and report on it, decided from the loop and the user's paths
// alone: Install, Uninstall and Status do the I/O.
type Manager struct {
	Name string
	// File is where the unit or plist goes, and Content what it holds.
	File, Content string
	// Verify checks a copy of Content at path before File is written; its
	// first word is the tool, skipped (and said so) when it is missing.
	Verify func(path string) []string
	// Judge turns the check's output into the problems it found in file.
	Judge func(out string, err error, file string) error
	// Start is run once File is written; replaced says a different file
	// was there, which a running loop has not read yet.
	Start func(replaced bool) []Cmd
	// Stop is run before File is removed, Forget after.
	Stop, Forget []Cmd
	Queries      []Query
	// Linger says the loop stops at logout unless the user lingers.
	Linger bool
	// Packaged is where a package puts the same file for every user, used
	// when File is absent; "" if none.
	Packaged string
}

// PackagedUnit is where the .deb installs the unit (for /usr/bin/reconciler
// and the default agent dir); a user's own unit of the same name hides it.
const PackagedUnit = "/usr/lib/systemd/user/" + UnitName

// Systemd is the systemd user manager's way, with the unit in
// configHome/systemd/user (configHome is $XDG_CONFIG_HOME or ~/.config).
func Systemd(l Loop, configHome string) (Manager, error) {
	unit, err := SystemdUnit(l)
	if err != nil {
		return Manager{}, err
	}
	if !filepath.IsAbs(configHome) {
		return Manager{}, fmt.Errorf("config home %q is not absolute", configHome)
	}
	systemctl := func(args ...string) Cmd { return Cmd{Argv: append([]string{"systemctl", "--user"}, args...)} }
	return Manager{
		Name:    "systemd",
		File:    filepath.Join(configHome, "systemd", "user", UnitName),
		Content: unit,
		Verify:  func(path string) []string { return []string{"systemd-analyze", "--user", "verify", path} },
		Judge:   judgeSystemdVerify,
		Start: func(replaced bool) []Cmd {
			cmds := []Cmd{systemctl("daemon-reload"), systemctl("enable", "--now", UnitName)}
			if replaced {
				// enable --now leaves a running loop on the old unit.
				cmds = append(cmds, systemctl("try-restart", UnitName))
			}
			return cmds
		},
		Stop:   []Cmd{systemctl("disable", "--now", UnitName)},
		Forget: []Cmd{systemctl("daemon-reload")},
		Queries: []Query{
			{Label: "enabled", Argv: []string{"systemctl", "--user", "is-enabled", UnitName}, Want: "enabled", Answer: firstWord},
			{Label: "active", Argv: []string{"systemctl", "--user", "is-active", UnitName}, Want: "active", Answer: firstWord},
		},
		Linger:   true,
		Packaged: PackagedUnit,
	}, nil
}

// Launchd is launchd's way, with the plist in home/Library/LaunchAgents,
// loaded into the user's gui domain.
func Launchd(l Loop, home string, uid int) (Manager, error) {
	plist, err := LaunchdPlist(l, home)
	if err != nil {
		return Manager{}, err
	}
	file := filepath.Join(home, "Library", "LaunchAgents", Label+".plist")
	domain := fmt.Sprintf("gui/%d", uid)
	target := domain + "/" + Label
	bootout := Cmd{Argv: []string{"launchctl", "bootout", target}, MayFail: true}
	return Manager{
		Name:    "launchd",
		File:    file,
		Content: plist,
		Verify:  func(path string) []string { return []string{"plutil", "-lint", path} },
		Judge: func(out string, err error, _ string) error {
			if err != nil {
				return fmt.Errorf("%w: %s", err, strings.TrimSpace(out))
			}
			return nil
		},
		// bootstrap refuses a label that is loaded: unload the old one first.
		Start: func(bool) []Cmd {
			return []Cmd{bootout, {Argv: []string{"launchctl", "enable", target}}, {Argv: []string{"launchctl", "bootstrap", domain, file}}}
		},
		Stop: []Cmd{bootout},
		Queries: []Query{
			{Label: "state", Argv: []string{"launchctl", "print", target}, Want: "running", Answer: launchdState},
		},
	}, nil
}

// judgeSystemdVerify fails on a non-zero exit and on any line about the
// file: systemd-analyze verify exits 0 after an unknown key or a value it
// cannot parse, and lines about other units are not this unit's problem.
func judgeSystemdVerify(out string, err error, file string) error {
	var problems []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, filepath.Base(file)) {
			problems = append(problems, strings.TrimSpace(line))
		}
	}
	switch {
	case len(problems) > 0:
		return errors.New(strings.Join(problems, "; "))
	case err != nil:
		return fmt.Errorf("%w: %s%s", err, strings.TrimSpace(out), NoUserManagerHint(out))
	}
	return nil
}

// NoUserManagerHint explains systemd's words for a shell with no user
// manager to talk to: su, sudo and some ssh setups leave XDG_RUNTIME_DIR
// unset or the user's bus unreachable.
func NoUserManagerHint(out string) string {
	for _, sign := range []string{"RuntimeDirectory", "Failed to connect to bus", "XDG_RUNTIME_DIR"} {
		if strings.Contains(out, sign) {
			return " (no systemd user manager answers this shell: run it as the user in a login session, not under su or sudo; XDG_RUNTIME_DIR must name /run/user/$UID)"
		}
	}
	return ""
}

// firstWord is systemctl is-enabled / is-active's answer, a word on a
// line; they exit non-zero for any answer but the good one, so the error
// counts only when there is no such answer (no user manager, say).
func firstWord(out string, err error) string {
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	if f := strings.Fields(line); len(f) == 1 {
		return f[0]
	}
	if line == "" && err != nil {
		line = err.Error()
	}
	return "unknown: " + line
}

// launchdState reads "state = running" from launchctl print; an error is
// an agent launchd does not have loaded.
func launchdState(out string, err error) string {
	if err != nil {
		return "not loaded"
	}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && strings.TrimSpace(k) == "state" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
