package service

import (
	"io"
	"os"
	"path/filepath"
)

// Native is this system's service manager for l: the systemd user
// manager, with the unit where it reads user units ($XDG_CONFIG_HOME, or
// ~/.config, then systemd/user).
func Native(l Loop, home string) (Manager, error) {
	configHome := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(configHome) {
		configHome = filepath.Join(home, ".config")
	}
	return Systemd(l, configHome)
}

// NativeHost is the host Native's manager runs on, for user.
func NativeHost(user string, out io.Writer) Host {
	return Host{
		Run:       ExecRunner{},
		LookPath:  lookPath,
		Out:       out,
		User:      user,
		Lingering: func() (bool, error) { return Lingering(LingerDir, user) },
	}
}
