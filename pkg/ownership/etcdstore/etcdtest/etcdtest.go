// Package etcdtest runs etcd inside a test process, on 127.0.0.1 (or an
// address the test chose, such as its own network namespace's), so the
// fleet's tests need nothing installed: one member, or three for the loss
// of a member. With $RECONCILER_TEST_ETCD naming a real etcd binary (such
// as Debian's etcd-server), every cluster runs on that binary instead.
package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Options say how to run the cluster.
type Options struct {
	Members int    // 1 when 0
	Host    string // the address members listen on; 127.0.0.1 when ""
	// TLS serves clients over TLS and asks them for a certificate signed
	// by the test's CA (Cluster.TLS); peers talk plain.
	TLS bool
	// MaxRequestBytes is the members' request size limit (etcd's
	// --max-request-bytes); etcd's default when 0.
	MaxRequestBytes uint
}

// Cluster is a running embedded cluster, stopped by the test's cleanup.
type Cluster struct {
	t       testing.TB
	mu      sync.Mutex // a member's etcd, stopped and started from timers
	members []*member
	tls     *TLSFiles

	rootUser, rootPassword string // set by EnableAuth
}

// EnableAuth turns authentication on with one user, root, of password:
// every client must then log in. Clients made before it still use none.
func (c *Cluster) EnableAuth(t testing.TB, password string) {
	t.Helper()
	cli := c.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.UserAdd(ctx, "root", password); err != nil {
		t.Fatalf("etcdtest: adding root: %v", err)
	}
	if _, err := cli.UserGrantRole(ctx, "root", "root"); err != nil {
		t.Fatalf("etcdtest: granting root: %v", err)
	}
	if _, err := cli.AuthEnable(ctx); err != nil {
		t.Fatalf("etcdtest: enabling auth: %v", err)
	}
	c.rootUser, c.rootPassword = "root", password
}

type member struct {
	tls        *TLSFiles
	name       string
	client     url.URL
	peer       url.URL
	dir        string
	etcd       server // nil while stopped
	binary     string // a real etcd binary to run (BinaryEnv); "" embeds the server
	initial    string
	clusterTok string
	maxRequest uint
}

// Start starts a cluster and waits until it serves.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	n := max(opts.Members, 1)
	host := opts.Host
	if host == "" {
		host = "127.0.0.1"
	}
	c := &Cluster{t: t}
	scheme := "http"
	if opts.TLS {
		c.tls, scheme = newTLSFiles(t, host), "https"
	}
	var initial []string
	for i := range n {
		m := &member{
			tls:    c.tls,
			name:   fmt.Sprintf("m%d", i),
			client: url.URL{Scheme: scheme, Host: freeAddr(t, host)},
			peer:   url.URL{Scheme: "http", Host: freeAddr(t, host)},
			dir:    t.TempDir(),
			binary: os.Getenv(BinaryEnv),

			maxRequest: opts.MaxRequestBytes,
		}
		initial = append(initial, m.name+"="+m.peer.String())
		c.members = append(c.members, m)
	}
	tok := fmt.Sprintf("etcdtest-%d", time.Now().UnixNano())
	for _, m := range c.members {
		m.initial, m.clusterTok = strings.Join(initial, ","), tok
	}
	errs := make(chan error, n)
	for _, m := range c.members {
		go func() { errs <- m.start(embed.ClusterStateFlagNew) }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatalf("etcdtest: %v", err)
		}
	}
	t.Cleanup(c.stop)
	return c
}

func (m *member) start(state string) error {
	if m.binary != "" {
		return m.startBinary(state)
	}
	cfg := embed.NewConfig()
	cfg.Name = m.name
	cfg.Dir = m.dir
	cfg.ListenClientUrls = []url.URL{m.client}
	cfg.AdvertiseClientUrls = []url.URL{m.client}
	cfg.ListenPeerUrls = []url.URL{m.peer}
	cfg.AdvertisePeerUrls = []url.URL{m.peer}
	cfg.InitialCluster = m.initial
	cfg.InitialClusterToken = m.clusterTok
	cfg.ClusterState = state
	if m.maxRequest > 0 {
		cfg.MaxRequestBytes = m.maxRequest
	}
	if m.tls != nil {
		cfg.ClientTLSInfo = transport.TLSInfo{CertFile: m.tls.ServerCert, KeyFile: m.tls.ServerKey,
			TrustedCAFile: m.tls.CA, ClientCertAuth: true}
	}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.ListenMetricsUrls = nil
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("starting member %s: %w", m.name, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return fmt.Errorf("member %s not ready within 60s", m.name)
	}
	m.etcd = embedded{e}
	return nil
}

// server is a running member: etcd embedded in this process, or a real
// etcd binary's process (binary.go).
type server interface {
	// ids are this member's id and its leader's, 0 when it knows none.
	ids() (self, leader uint64)
	close()
}

type embedded struct{ e *embed.Etcd }

func (s embedded) ids() (uint64, uint64) {
	return uint64(s.e.Server.MemberID()), uint64(s.e.Server.Leader())
}
func (s embedded) close() { s.e.Close() }

// freeAddr is a port on host nothing listens on now.
func freeAddr(t testing.TB, host string) string {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatalf("etcdtest: finding a free port on %s: %v", host, err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Endpoints are the members' client URLs.
func (c *Cluster) Endpoints() []string {
	var out []string
	for _, m := range c.members {
		out = append(out, m.client.String())
	}
	return out
}

// TLS are the cluster's certificate files; nil unless Options.TLS.
func (c *Cluster) TLS() *TLSFiles { return c.tls }

// Client is a client of the whole cluster, closed by the test's cleanup:
// with the client certificate when the cluster asks for one, as root once
// EnableAuth ran.
func (c *Cluster) Client(t testing.TB) *clientv3.Client {
	t.Helper()
	cfg := clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop(), Username: c.rootUser, Password: c.rootPassword}
	if c.tls != nil {
		tc, err := (transport.TLSInfo{CertFile: c.tls.ClientCert, KeyFile: c.tls.ClientKey, TrustedCAFile: c.tls.CA}).ClientConfig()
		if err != nil {
			t.Fatalf("etcdtest: client TLS: %v", err)
		}
		cfg.TLS = tc
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatalf("etcdtest: client: %v", err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// Leader is the index of the member that leads the raft group now, -1
// when none of the running members knows of one.
func (c *Cluster) Leader() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		if m.etcd == nil {
			continue
		}
		_, lead := m.etcd.ids()
		for j, o := range c.members {
			if o.etcd == nil {
				continue
			}
			if self, _ := o.etcd.ids(); lead != 0 && self == lead {
				return j
			}
		}
	}
	return -1
}

// StopMember stops member i, as a lost machine would: the others go on
// while a majority remains.
func (c *Cluster) StopMember(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.members[i]; m.etcd != nil {
		m.etcd.close()
		m.etcd = nil
	}
}

// RestartMember starts a stopped member i again on its data dir, as a
// machine back from a crash: it rejoins the cluster it left.
func (c *Cluster) RestartMember(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.members[i]
	if m.etcd != nil {
		return nil
	}
	return m.start(embed.ClusterStateFlagExisting)
}

// StopAll stops every member: the whole cluster's outage.
func (c *Cluster) StopAll() { c.stop() }

// RestartAll starts every stopped member again on its data dir, all at
// once (a member serves only once a quorum is back), and returns when
// they serve.
func (c *Cluster) RestartAll() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	errs := make(chan error, len(c.members))
	n := 0
	for _, m := range c.members {
		if m.etcd == nil {
			n++
			go func() { errs <- m.start(embed.ClusterStateFlagExisting) }()
		}
	}
	var err error
	for range n {
		err = errors.Join(err, <-errs)
	}
	return err
}

// Running reports whether member i serves now.
func (c *Cluster) Running(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.members[i].etcd != nil
}

// Members is how many members the cluster has, running or not.
func (c *Cluster) Members() int { return len(c.members) }

func (c *Cluster) stop() {
	for i := range c.members {
		c.StopMember(i)
	}
}
