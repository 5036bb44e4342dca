package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/internal/agentdir"
)

// Options configure a Store.
type Options struct {
	// Client is the cluster's client; the Store does not close it.
	Client *clientv3.Client
	// AgentDir is this machine's agent dir: where its daemons' logs and
	// relay files live, and its reconcilers' pass lock.
	AgentDir string
	// Machine names this machine in the fleet (default: the hostname).
	Machine string
	// LeaseTTL is every lease's TTL, whole seconds, at least MinLeaseTTL.
	LeaseTTL time.Duration
	// Prefix is where the records live (DefaultPrefix when empty).
	Prefix string
	// RequestTimeout bounds each request not tied to a lease
	// (DefaultRequestTimeout when 0).
	RequestTimeout time.Duration
	Log            logr.Logger
}

// Store is the fleet's ownership.Store and ownership.Acquirer.
type Store struct {
	cli      *clientv3.Client
	agentDir string
	machine  string
	ttl      time.Duration
	prefix   string
	timeout  time.Duration
	log      logr.Logger

	ctx    context.Context // ended by Close
	cancel context.CancelFunc

	mu        sync.Mutex
	session   *concurrency.Session // the candidacies' lease; nil until the first
	campaigns map[string]bool      // names this store is a candidate for, in session

	quiet    silence                // the cluster's last silence (silence.go)
	watchers map[chan struct{}]bool // what the probe pokes (probe.go); nil until the first watch
	written  map[string]int64       // the revision of this store's last hold of each name (Unhold)
}

var (
	_ ownership.Store    = (*Store)(nil)
	_ ownership.Acquirer = (*Store)(nil)
)

// DefaultRequestTimeout bounds one request that is not tied to a lease.
const DefaultRequestTimeout = 5 * time.Second

// New returns a store over opts.Client.
func New(opts Options) (*Store, error) {
	switch {
	case opts.Client == nil:
		return nil, errors.New("etcdstore: no client")
	case opts.AgentDir == "":
		return nil, errors.New("etcdstore: no agent dir")
	case !ownerIDPattern.MatchString(opts.Machine):
		return nil, fmt.Errorf("etcdstore: machine id %q: want 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit", opts.Machine)
	case opts.LeaseTTL < MinLeaseTTL || opts.LeaseTTL%time.Second != 0:
		return nil, fmt.Errorf("etcdstore: lease TTL %s: want whole seconds, at least %s", opts.LeaseTTL, MinLeaseTTL)
	}
	prefix := opts.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	timeout := opts.RequestTimeout
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Store{timeout: timeout,
		cli: opts.Client, agentDir: opts.AgentDir, machine: opts.Machine, ttl: opts.LeaseTTL,
		prefix: prefix, log: opts.Log,
		ctx: ctx, cancel: cancel, campaigns: map[string]bool{},
	}, nil
}

func (s *Store) keys(name string) keys { return keysOf(s.prefix, name) }

// Machine is this store's machine id.
func (s *Store) Machine() string { return s.machine }

// Prepare makes name's local dir (its daemon's log lives there) and
// stands this machine as a candidate to lead name.
func (s *Store) Prepare(name string) error {
	if err := agentdir.EnsureDir(ownership.PathsFor(s.agentDir, name)); err != nil {
		return err
	}
	return s.campaign(name)
}

// LockPasses takes this agent dir's pass lock: passes on other machines
// run beside this one, each leading its own names.
func (s *Store) LockPasses(ctx context.Context) (func(), error) {
	l, err := agentdir.TakePassLock(ctx, s.agentDir)
	if err != nil {
		return nil, err
	}
	return l.Release, nil
}

// Boot says that owners here are proved by leases, which no reboot
// survives, not by incarnations, which only one boot orders.
func (s *Store) Boot() ownership.BootFacts { return ownership.BootFacts{LeaseBound: true} }

func (s *Store) Now() time.Time { return time.Now() }

// Close withdraws this store's candidacies (another machine may lead at
// once) and ends its watches.
func (s *Store) Close() error {
	s.mu.Lock()
	sess := s.session
	s.session, s.campaigns = nil, map[string]bool{}
	s.mu.Unlock()
	var err error
	if sess != nil {
		// Before the store's context ends: the session revokes its lease
		// under it.
		err = sess.Close()
	}
	s.cancel()
	return err
}
