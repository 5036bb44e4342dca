package systemtest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// testNet is a network namespace this test made, joined to the test's own
// network by a veth pair: a second host on this box. The host side has
// two addresses, one for etcd (which a partition cuts) and one for the
// fakes (which it does not), so a machine inside loses the cluster and
// keeps the chat service, as a machine behind a broken link to the
// cluster would.
type testNet struct {
	t                     testing.TB
	name                  string
	etcdIP, fakesIP, inIP string
}

var nets atomic.Int64

// RequireNetnsEnv, set (as .ci/run sets it: CI runs as root, with
// iproute2), makes a test that needs a network namespace fail where it
// would skip: the partition tests and the fleet's chaos run must not pass
// by not running.
const RequireNetnsEnv = "RECONCILER_TEST_REQUIRE_NETNS"

// netnsVerdict is what a test that needs a network namespace does on a
// machine run as euid, with or without ip: "" runs it; else skip, or, when
// the namespace is required, fail, saying why.
func netnsVerdict(euid int, haveIP, required bool) (skip, fail string) {
	why := ""
	switch {
	case euid != 0:
		why = "SKIPPED: this test makes a network namespace: it needs root"
	case !haveIP:
		why = "SKIPPED: this test makes a network namespace with ip (iproute2), which is not installed"
	default:
		return "", ""
	}
	if required {
		return "", fmt.Sprintf("%s, and $%s says it must run here", strings.TrimPrefix(why, "SKIPPED: "), RequireNetnsEnv)
	}
	return why + fmt.Sprintf(" (set $%s to make this a failure, as CI does)", RequireNetnsEnv), ""
}

// newTestNet makes the namespace, or skips (loudly) when this machine
// cannot: it needs root and ip from iproute2 (.ci/run installs it). With
// $RECONCILER_TEST_REQUIRE_NETNS set it fails instead.
func newTestNet(t testing.TB) *testNet {
	t.Helper()
	_, ipErr := exec.LookPath("ip")
	switch skip, fail := netnsVerdict(os.Geteuid(), ipErr == nil, os.Getenv(RequireNetnsEnv) != ""); {
	case fail != "":
		t.Fatal(fail)
	case skip != "":
		t.Skip(skip)
	}
	n := nets.Add(1)
	id := (os.Getpid()*7 + int(n)) % 250
	tn := &testNet{t: t, name: fmt.Sprintf("rcpart%d-%d", os.Getpid(), n),
		etcdIP: fmt.Sprintf("10.213.%d.1", id), fakesIP: fmt.Sprintf("10.213.%d.3", id), inIP: fmt.Sprintf("10.213.%d.2", id)}
	// With the pid, as the namespace's name: a run killed before its
	// cleanup leaves its veth behind, and the next run must not trip on it.
	host, in := fmt.Sprintf("rch%d-%d", os.Getpid(), n), fmt.Sprintf("rcn%d-%d", os.Getpid(), n)
	t.Cleanup(func() {
		_ = exec.Command("ip", "netns", "del", tn.name).Run()
		_ = exec.Command("ip", "link", "del", host).Run()
	})
	tn.ip("netns", "add", tn.name)
	tn.ip("link", "add", host, "type", "veth", "peer", "name", in)
	tn.ip("link", "set", in, "netns", tn.name)
	tn.ip("addr", "add", tn.etcdIP+"/24", "dev", host)
	tn.ip("addr", "add", tn.fakesIP+"/24", "dev", host)
	tn.ip("link", "set", host, "up")
	tn.ip("-n", tn.name, "addr", "add", tn.inIP+"/24", "dev", in)
	tn.ip("-n", tn.name, "link", "set", in, "up")
	tn.ip("-n", tn.name, "link", "set", "lo", "up")
	// The other namespaces' host addresses are this box's own: reached
	// through this one's host side.
	tn.ip("-n", tn.name, "route", "add", "default", "via", tn.etcdIP)
	return tn
}

func (tn *testNet) ip(args ...string) {
	tn.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		tn.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// wrap runs a command inside the namespace.
func (tn *testNet) wrap() []string { return []string{"ip", "netns", "exec", tn.name} }

// cut drops, inside the namespace, everything sent to etcdIP: connections
// stay open and go silent, as across a broken link.
func (tn *testNet) cut(etcdIP string) {
	tn.t.Helper()
	if err := tn.blackhole("add", etcdIP); err != nil {
		tn.t.Fatal(err)
	}
}

func (tn *testNet) heal(etcdIP string) {
	tn.t.Helper()
	if err := tn.blackhole("del", etcdIP); err != nil {
		tn.t.Fatal(err)
	}
}

// blackhole adds or deletes (op) the route that drops what the namespace
// sends to ip; an error instead of a failed test, for callers on a timer.
func (tn *testNet) blackhole(op, ip string) error {
	if out, err := exec.Command("ip", "-n", tn.name, "route", op, "blackhole", ip+"/32").CombinedOutput(); err != nil {
		return fmt.Errorf("ip route %s blackhole %s: %w: %s", op, ip, err, strings.TrimSpace(string(out)))
	}
	return nil
}
