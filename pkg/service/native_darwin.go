package service

import (
	"io"
	"os"
)

// Native is this system's service manager for l: launchd, with the agent
// in home's Library/LaunchAgents, in the user's gui domain.
func Native(l Loop, home string) (Manager, error) {
	return Launchd(l, home, os.Getuid())
}

// NativeHost is the host Native's manager runs on; launchd keeps a user's
// agents loaded for the session, and has no lingering to report.
func NativeHost(user string, out io.Writer) Host {
	return Host{Run: ExecRunner{}, LookPath: lookPath, Out: out, User: user}
}
