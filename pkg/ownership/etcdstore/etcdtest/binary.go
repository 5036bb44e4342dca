package etcdtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// BinaryEnv names a real etcd binary for the tests' clusters, instead of
// the server embedded in the test process: the servers the fleet supports
// are checked the same way (Debian's etcd-server: /usr/bin/etcd).
const BinaryEnv = "RECONCILER_TEST_ETCD"

// process is a member run by a real etcd binary.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	cli  *clientv3.Client // this member alone, for its ids
}

// startBinary starts m on m.binary with the flags the embedded server
// gets, and waits until it answers.
func (m *member) startBinary(state string) error {
	args := []string{
		"--name", m.name, "--data-dir", m.dir,
		"--listen-client-urls", m.client.String(), "--advertise-client-urls", m.client.String(),
		"--listen-peer-urls", m.peer.String(), "--initial-advertise-peer-urls", m.peer.String(),
		"--initial-cluster", m.initial, "--initial-cluster-token", m.clusterTok, "--initial-cluster-state", state,
		"--log-outputs", "stderr", "--logger", "zap",
	}
	if m.maxRequest > 0 {
		args = append(args, "--max-request-bytes", strconv.FormatUint(uint64(m.maxRequest), 10))
	}
	cfg := clientv3.Config{Endpoints: []string{m.client.String()}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()}
	if m.tls != nil {
		args = append(args, "--cert-file", m.tls.ServerCert, "--key-file", m.tls.ServerKey,
			"--trusted-ca-file", m.tls.CA, "--client-cert-auth")
		tc, err := (transport.TLSInfo{CertFile: m.tls.ClientCert, KeyFile: m.tls.ClientKey, TrustedCAFile: m.tls.CA}).ClientConfig()
		if err != nil {
			return fmt.Errorf("member %s: client TLS: %w", m.name, err)
		}
		cfg.TLS = tc
	}
	cmd := exec.Command(m.binary, args...)
	logFile, err := os.OpenFile(m.dir+".log", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting member %s (%s): %w", m.name, m.binary, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	cli, err := clientv3.New(cfg)
	if err != nil {
		p.close()
		return fmt.Errorf("member %s: client: %w", m.name, err)
	}
	p.cli = cli
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := cli.Status(ctx, m.client.String())
		cancel()
		switch {
		case err == nil && resp.Leader != 0:
			m.etcd = p
			return nil
		case time.Now().After(deadline):
			p.close()
			return fmt.Errorf("member %s (%s) not ready within 60s (its log: %s.log): %v", m.name, m.binary, m.dir, err)
		}
		select {
		case <-p.done:
			p.close()
			return fmt.Errorf("member %s (%s) exited: %s (its log: %s.log)", m.name, m.binary, cmd.ProcessState, m.dir)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (p *process) ids() (uint64, uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	resp, err := p.cli.Status(ctx, p.cli.Endpoints()[0])
	if err != nil {
		return 0, 0
	}
	return resp.Header.MemberId, resp.Leader
}

// close stops the member as the embedded server's Close does: at once,
// its data kept.
func (p *process) close() {
	if p.cli != nil {
		_ = p.cli.Close()
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}
