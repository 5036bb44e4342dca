package systemtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
	"gjc.dev/reconciler/pkg/platform"
)

// A fleet on a cluster that serves TLS, asks for client certificates and
// has authentication on, reached with the flags etcdctl users know. The
// password comes from a file: it is in no daemon's argv, and nowhere in
// the logs.
func TestFleetOverTLSWithAuth(t *testing.T) {
	const password = "pw-9f3c1d7e-never-shown"
	c := etcdtest.Start(t, etcdtest.Options{TLS: true})
	c.EnableAuth(t, password)
	fl := &fleet{t: t, cluster: c, cli: c.Client(t), f: startFakes(t), ttl: fleetTTL, objs: []object{{name: "bot", provider: "discord", generation: 1}}}
	t.Cleanup(fl.killDaemons)
	m := fl.add("m1")
	pwFile := filepath.Join(t.TempDir(), "etcd-password")
	if err := os.WriteFile(pwFile, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tf := c.TLS()
	m.loop = m.e.startLoop(append(fl.args(m), "--etcd-cacert", tf.CA, "--etcd-cert", tf.ClientCert, "--etcd-key", tf.ClientKey,
		"--etcd-user", "root", "--etcd-password-file", pwFile)...)
	waitDiscord(t, fl.f, "a session through the TLS cluster", func(s fakediscord.TokenStats) bool { return s.Live == 1 })

	h := fl.holder("bot")
	if h == nil || h.Machine != "m1" {
		t.Fatalf("bot is held by %+v, want m1", h)
	}
	argv, err := platform.ProcessArgv(h.PID, h.Incarnation)
	if err != nil {
		t.Fatalf("reading the daemon's argv: %v", err)
	}
	joined := strings.Join(argv, " ")
	if strings.Contains(joined, password) || !strings.Contains(joined, "--etcd-password-file") {
		t.Errorf("the daemon's argv shows the password, or not where it comes from: %q", joined)
	}
	daemonLog, _ := os.ReadFile(filepath.Join(m.e.paths("bot").Dir, "daemon.log"))
	for what, text := range map[string]string{"the loop's log": m.loop.logs.String(), "daemon.log": string(daemonLog)} {
		if strings.Contains(text, password) {
			t.Errorf("%s holds the password", what)
		}
	}
	status := runBinary(t, nil, append([]string{"status", "--agent-dir", m.e.agentDir}, fl.args(m)...)...)
	if status.code != 0 || !strings.Contains(lineOf(status.stdout, "bot "), "m1") {
		t.Errorf("status (exit %d) does not show bot on m1:\n%s%s", status.code, status.stdout, status.stderr)
	}
}
