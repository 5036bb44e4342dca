package daemonproto

import (
	"slices"
	"testing"
)

func TestEnvDropsTheServiceAndSecretVariables(t *testing.T) {
	parent := []string{
		"HOME=/home/u", "PATH=/usr/bin",
		"NOTIFY_SOCKET=/run/systemd/notify", "WATCHDOG_USEC=60000000", "WATCHDOG_PID=1",
		"LISTEN_FDS=1", "LISTEN_PID=1", "LISTEN_FDNAMES=x",
		"DISCORD_BOT_TOKEN=secret", "SLACK_APP_TOKEN=xapp-secret",
		// Whatever the spec names: the daemon gets it on stdin.
		"RECONCILER_ETCD_PASSWORD=etcd-secret",
		// A name that merely starts like a secret's is kept.
		"DISCORD_BOT_TOKEN_FILE=/path",
	}
	got := Env(parent, []string{"DISCORD_BOT_TOKEN", "SLACK_APP_TOKEN"})
	want := []string{"HOME=/home/u", "PATH=/usr/bin", "DISCORD_BOT_TOKEN_FILE=/path"}
	if !slices.Equal(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
}
