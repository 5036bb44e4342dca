package service

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"
)

// Label is the LaunchAgent's label and, with ".plist", its file name in
// ~/Library/LaunchAgents.
const Label = "dev.gjc.reconciler"

// LaunchdPlist is the LaunchAgent that runs l, logging to home's
// Library/Logs. config/dev.gjc.reconciler.plist is this plist for
// /Users/YOU/go/bin/reconciler and home /Users/YOU (a test keeps them
// equal).
func LaunchdPlist(l Loop, home string) (string, error) {
	if err := l.Check(); err != nil {
		return "", err
	}
	if err := (Loop{Binary: home}).Check(); err != nil {
		return "", fmt.Errorf("home: %w", err)
	}
	var args strings.Builder
	for _, a := range l.Args() {
		fmt.Fprintf(&args, "\n    <string>%s</string>", xmlText(a))
	}
	log := filepath.Join(home, "Library", "Logs", "reconciler.log")
	return strings.NewReplacer("@ARGS@", args.String(), "@LOG@", xmlText(log)).Replace(plistTemplate), nil
}

// xmlText escapes s for an element's text: a path may hold '&' or '<'.
func xmlText(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // writing to a bytes.Buffer does not fail
	return b.String()
}

const plistTemplate = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!--
  A launchd agent for the reconcile loop on macOS, as "reconciler service
  install" writes it into ~/Library/LaunchAgents for its own binary and
  agent dir, and loads it (launchctl bootstrap gui/$(id -u) ...).

  Tokens: launchd has no private environment file, so use fromFile secrets in
  the spec (chmod 600 files owned by you), never this file. Re-read the spec
  with launchctl kill HUP gui/$(id -u)/dev.gjc.reconciler.
-->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>dev.gjc.reconciler</string>
  <key>ProgramArguments</key>
  <array>@ARGS@
  </array>
  <key>RunAtLoad</key>
  <true/>
  <!-- Restart after a crash, not after a clean stop. -->
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <!-- Daemons outlive the loop; the next loop attaches to them. -->
  <key>AbandonProcessGroup</key>
  <true/>
  <key>ProcessType</key>
  <string>Background</string>
  <key>StandardErrorPath</key>
  <string>@LOG@</string>
</dict>
</plist>
`
