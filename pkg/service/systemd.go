package service

import (
	"fmt"
	"strings"
)

// UnitName is the systemd user unit's name, in ~/.config/systemd/user or,
// as the .deb installs it, /usr/lib/systemd/user.
const UnitName = "reconciler.service"

// SystemdUnit is the user unit that runs l. config/reconciler.service is
// this unit for /usr/bin/reconciler (a test keeps them equal): edit the
// text here, then regenerate the file (go test ./pkg/service -update).
func SystemdUnit(l Loop) (string, error) {
	if err := l.Check(); err != nil {
		return "", err
	}
	if strings.ContainsAny(l.Binary, "\"'\\") {
		return "", fmt.Errorf("binary %q: systemd refuses an executable whose path has a quote or a backslash; move the binary, or link it from a plain path", l.Binary)
	}
	args := l.Args()
	words := []string{systemdExec(args[0])}
	for _, a := range args[1:] {
		words = append(words, systemdArg(a))
	}
	return strings.Replace(unitTemplate, "@EXEC@", strings.Join(words, " "), 1), nil
}

const unitTemplate = `# A systemd user unit for the reconcile loop, as "reconciler service install"
# writes it (into ~/.config/systemd/user, for its own binary and agent dir)
# and as the .deb installs it (into /usr/lib/systemd/user). To change a
# setting, use a drop-in (systemctl --user edit reconciler): a new install
# rewrites this file.
#
#   systemctl --user enable --now reconciler   # what service install runs
#   loginctl enable-linger "$USER"             # keep it running when you log out
#
# systemctl --user reload reconciler re-reads the spec (SIGHUP); journalctl
# --user -u reconciler shows the loop's logs; each daemon logs to
# <agent-dir>/sdk/daemons/<name>/daemon.log.
[Unit]
Description=reconciler: keep chat bot daemons running as daemons.yaml says
# No network-online.target: a user unit's manager has no such target, so it
# would order and wait for nothing. A daemon started before the network is up
# retries its connection and is Ready once it connects.

[Service]
Type=notify
# The loop sends READY=1 after its first full pass, STATUS=<ready>/<desired>
# after each, and WATCHDOG=1 at half of WatchdogSec from its own goroutine.
NotifyAccess=main
ExecStart=@EXEC@
ExecReload=/bin/kill -HUP $MAINPID
# Tokens named by fromEnv in the spec, never in this file; the daemons never
# inherit them (they get their config on stdin).
EnvironmentFile=-%h/.config/reconciler/env
# Only the loop is stopped or restarted: daemons outlive it, and the next
# loop attaches to them.
KillMode=process
Restart=on-failure
RestartSec=2s
WatchdogSec=60s
TimeoutStopSec=30s

[Install]
WantedBy=default.target
`

// systemdExec writes ExecStart='s executable so systemd reads it back as
// it is: '%' would start a specifier, so it is doubled (a '$' is not
// expanded there, so it stays), and a path with a blank is quoted. Quotes
// and backslashes never get here: systemd refuses them in an executable's
// name (SystemdUnit says so).
func systemdExec(path string) string {
	escaped := strings.ReplaceAll(path, "%", "%%")
	if strings.ContainsAny(path, " \t") {
		return `"` + escaped + `"`
	}
	return escaped
}

// systemdArg writes one argument of ExecStart= so systemd reads it back as
// it is: '%' would start a specifier and '$' a variable, so both are
// doubled; a backslash or a double quote is escaped; a word with a blank or
// a quote is put in double quotes. (A ';' separates commands only as a word
// of its own, which no flag or absolute path is.) Control characters never
// get here (Loop.Check).
func systemdArg(word string) string {
	escaped := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$").Replace(word)
	if word == "" || strings.ContainsAny(word, " \t\"'\\") {
		return `"` + escaped + `"`
	}
	return escaped
}
