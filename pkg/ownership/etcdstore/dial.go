package etcdstore

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// DialOptions are how to reach the operator's cluster, as etcdctl takes
// them. The password is a value here, never a flag: it comes from a file
// or the environment.
type DialOptions struct {
	Endpoints []string
	CACert    string // a PEM bundle that verifies the servers
	Cert, Key string // a client certificate and its key
	User      string
	Password  string
}

// reconnect is how the client tries the cluster again after losing it.
// gRPC's default backs off to two minutes between tries: after a 20 s
// outage its next try could come 10 s after the cluster is back, and every
// lease on this machine would wait for it. Here a try is at most a second
// apart, each given 5 s to connect (the request timeout's bound).
var reconnect = grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: 250 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
	MinConnectTimeout: 5 * time.Second,
}

// maxPEM bounds a certificate or key file: real ones are a few KiB.
const maxPEM = 1 << 20

// Dial returns a client of the cluster. It does not wait for the cluster:
// the first request says whether it answers.
func Dial(o DialOptions) (*clientv3.Client, error) {
	if len(o.Endpoints) == 0 {
		return nil, errors.New("--etcd-endpoints: no endpoint")
	}
	secure := false
	for i, e := range o.Endpoints {
		https, err := checkEndpoint(e)
		if err != nil {
			return nil, fmt.Errorf("--etcd-endpoints (endpoint %d of %d): %w", i+1, len(o.Endpoints), err)
		}
		secure = secure || https
	}
	cfg := clientv3.Config{
		Endpoints: o.Endpoints, DialTimeout: 5 * time.Second,
		DialKeepAliveTime: 5 * time.Second, DialKeepAliveTimeout: 5 * time.Second,
		Username: o.User, Password: o.Password,
		// Its logs would go to stderr in its own format; what matters is
		// reported by the store's errors.
		Logger:      zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(reconnect)},
	}
	if o.User == "" && o.Password != "" {
		return nil, errors.New("an etcd password was given without --etcd-user")
	}
	if (o.Cert == "") != (o.Key == "") {
		return nil, errors.New("--etcd-cert and --etcd-key go together")
	}
	if secure || o.CACert != "" || o.Cert != "" {
		tc, err := tlsConfig(o)
		if err != nil {
			return nil, err
		}
		cfg.TLS = tc
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	return cli, nil
}

// checkEndpoint judges one endpoint: an http:// or https:// host:port and
// nothing else. Credentials in it (user info, or a query such as
// ?password=) would sit in every daemon's argv, which any user's ps reads:
// refused, pointing at --etcd-user and the password file or environment.
// Its errors never quote what may hold a secret.
func checkEndpoint(e string) (https bool, err error) {
	u, perr := url.Parse(e)
	switch {
	case perr != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/"):
		return false, fmt.Errorf("%s is not an http:// or https:// host:port", shownEndpoint(e, u, perr))
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return false, fmt.Errorf("%s://%s carries credentials or parameters (user info, a query or a fragment, not shown); an endpoint is a host:port only: give credentials with --etcd-user and --etcd-password-file or $RECONCILER_ETCD_PASSWORD", u.Scheme, u.Host)
	}
	return u.Scheme == "https", nil
}

// shownEndpoint is e for an error message: whole only when nothing in it
// can carry a secret (no user info, query or fragment), else its scheme,
// host and path, or nothing when it has no host to show: a string
// without a scheme such as "root:pw@etcd:2379" parses with "root" as its
// scheme and the password in its opaque part.
func shownEndpoint(e string, u *url.URL, perr error) string {
	if !strings.ContainsAny(e, "@?#") {
		return strconv.Quote(e)
	}
	if perr == nil && u.Opaque == "" && u.Host != "" && !strings.Contains(u.Host, "@") {
		return strconv.Quote(u.Scheme + "://" + u.Host + u.EscapedPath())
	}
	return "the endpoint (not shown: it may hold a secret)"
}

func tlsConfig(o DialOptions) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CACert != "" {
		pem, err := readPEM("--etcd-cacert", o.CACert)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--etcd-cacert %s: no PEM certificate in it", o.CACert)
		}
		tc.RootCAs = pool
	}
	if o.Cert != "" {
		cert, err := readPEM("--etcd-cert", o.Cert)
		if err != nil {
			return nil, err
		}
		key, err := readPEM("--etcd-key", o.Key)
		if err != nil {
			return nil, err
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			// Never the key's bytes: the error names the files only.
			return nil, fmt.Errorf("--etcd-cert %s / --etcd-key %s: not a certificate and its key", o.Cert, o.Key)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

// readPEM reads a regular file of at most maxPEM bytes. Links are
// followed: certificates are often links into a secret's mount.
func readPEM(flag, path string) ([]byte, error) {
	data, err := readRegular(path, maxPEM)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return data, nil
}

// readRegular reads a regular file of at most max bytes. It is opened
// without blocking, so a FIFO put in its place fails instead of hanging,
// and judged by the descriptor it opened, not by its name.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%d bytes, over the %d allowed", fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("over the %d bytes allowed", max)
	}
	return data, nil
}

// ReadPassword reads a password file: one line, at most 4 KiB, a regular
// file only (not a FIFO that would block, nor a device).
func ReadPassword(path string) (string, error) {
	data, err := readRegular(path, 4<<10)
	if err != nil {
		return "", fmt.Errorf("--etcd-password-file %s: %w", path, err)
	}
	pw := strings.TrimRight(string(data), "\r\n")
	if pw == "" || strings.ContainsAny(pw, "\r\n") {
		return "", fmt.Errorf("--etcd-password-file %s: want one non-empty line", path)
	}
	return pw, nil
}
