package systemtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// realEtcd runs a three-member cluster of the installed etcd binary (CI
// installs Debian's) on 127.0.0.1, stopped by the test's cleanup, and
// returns its client URLs and a client. Without an etcd on PATH the test
// is skipped, saying so: the embedded cluster's run of the same test
// stands alone then.
func realEtcd(t *testing.T) ([]string, *clientv3.Client) {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		t.Skip("no etcd binary on PATH: the fleet's test on an installed etcd is skipped (the embedded cluster's run covers the same)")
	}
	const members = 3
	peers, clients := make([]string, members), make([]string, members)
	var initial []string
	for i := range members {
		peers[i], clients[i] = "http://"+freeLocalAddr(t), "http://"+freeLocalAddr(t)
		initial = append(initial, fmt.Sprintf("m%d=%s", i, peers[i]))
	}
	dir := t.TempDir()
	for i := range members {
		log, err := os.Create(filepath.Join(dir, fmt.Sprintf("m%d.log", i)))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "--name", fmt.Sprintf("m%d", i), "--data-dir", filepath.Join(dir, fmt.Sprintf("m%d.etcd", i)),
			"--listen-peer-urls", peers[i], "--initial-advertise-peer-urls", peers[i],
			"--listen-client-urls", clients[i], "--advertise-client-urls", clients[i],
			"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "new",
			"--initial-cluster-token", filepath.Base(dir))
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			_ = log.Close()
			if t.Failed() {
				if b, err := os.ReadFile(log.Name()); err == nil {
					t.Logf("etcd member m%d said:\n%s", i, b)
				}
			}
		})
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: clients, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := cli.Put(ctx, "/ready", "yes")
		cancel()
		if err == nil {
			return clients, cli
		}
		if time.Now().After(deadline) {
			t.Fatalf("the installed etcd's cluster did not answer within 30s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// freeLocalAddr is a 127.0.0.1 address nothing listens on now.
func freeLocalAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
