package systemtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
)

// A fleet whose etcd password is in the loop's environment: its daemon
// logs in to the cluster (it holds the name there), yet neither its
// environment nor its command line, nor any other daemon process of the
// agent dir (a warm replacement), nor the logs, carry the password. It is
// handed to the daemon on stdin.
func TestFleetPasswordFromTheEnvironmentStaysOutOfDaemons(t *testing.T) {
	const password = "pw-env-5b2e8a1c-never-shown"
	c := etcdtest.Start(t, etcdtest.Options{})
	c.EnableAuth(t, password)
	fl := &fleet{t: t, cluster: c, cli: c.Client(t), f: startFakes(t), ttl: fleetTTL, objs: []object{{name: "bot", provider: "discord", generation: 1}}}
	t.Cleanup(fl.killDaemons)
	m := fl.add("m1")
	m.e.env = append(m.e.env, daemonproto.EtcdPasswordEnv+"="+password)
	m.loop = m.e.startLoop(append(fl.args(m), "--etcd-user", "root")...)
	waitDiscord(t, fl.f, "a session through the cluster with auth on", func(s fakediscord.TokenStats) bool { return s.Live == 1 })

	h := fl.holder("bot")
	if h == nil || h.Machine != "m1" {
		t.Fatalf("bot is held by %+v, want m1", h)
	}
	procs := m.e.openDaemons("")
	defer func() {
		for _, p := range procs {
			_ = p.Close()
		}
	}()
	pids := []int{h.PID}
	for _, p := range procs {
		if p.PID() != h.PID {
			pids = append(pids, p.PID())
		}
	}
	for _, pid := range pids {
		for _, f := range []string{"cmdline", "environ"} {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f))
			if err != nil {
				t.Fatalf("daemon %d: %v", pid, err)
			}
			if bytes.Contains(data, []byte(password)) || bytes.Contains(data, []byte(daemonproto.EtcdPasswordEnv+"=")) {
				t.Errorf("daemon %d's %s carries the etcd password", pid, f)
			}
		}
	}
	daemonLog, _ := os.ReadFile(filepath.Join(m.e.paths("bot").Dir, "daemon.log"))
	for what, text := range map[string]string{"the loop's log": m.loop.logs.String(), "daemon.log": string(daemonLog)} {
		if strings.Contains(text, password) {
			t.Errorf("%s holds the password", what)
		}
	}
}

// An endpoint that carries credentials (a query, user info) is refused
// before anything runs, naming the flag and not the secret: it would sit
// in every daemon's command line.
func TestFleetRefusesCredentialsInEndpoints(t *testing.T) {
	t.Parallel()
	const secret = "pw-query-77e1b0-never-shown"
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	for _, endpoint := range []string{
		"http://127.0.0.1:2379/?password=" + secret,
		"http://root:" + secret + "@127.0.0.1:2379",
	} {
		r := e.once("--ownership", "etcd", "--etcd-endpoints", endpoint, "--machine-id", "m1")
		if r.code != exitInvalid || !strings.Contains(r.stderr, "--etcd-endpoints (endpoint 1 of 1): http://127.0.0.1:2379 carries credentials") {
			t.Errorf("a loop with %s: exit %d, stderr %q; want exit %d naming the flag", strings.ReplaceAll(endpoint, secret, "SECRET"), r.code, r.stderr, exitInvalid)
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Error("the refusal shows the secret")
		}
	}
	if procs := e.openDaemons(""); len(procs) > 0 {
		for _, p := range procs {
			_ = p.Close()
		}
		t.Errorf("%d daemons were started", len(procs))
	}
}
