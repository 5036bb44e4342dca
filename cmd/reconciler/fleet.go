package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/fleetbus"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
)

const (
	ownershipFiles = "files"
	ownershipEtcd  = "etcd"
)

// fleetFlags choose the ownership backend: this machine's files, or the
// operator's etcd cluster shared by a fleet. Daemons get the same flags
// (daemonArgs), so a daemon holds its name where its reconciler looks.
type fleetFlags struct {
	backend      string
	endpoints    []string
	cacert       string
	cert, key    string
	user         string
	passwordFile string
	leaseTTL     time.Duration
	machineID    string
	prefix       string

	password string // read once, from the file or the environment
}

func addFleetFlags(f *pflag.FlagSet, o *fleetFlags) {
	f.StringVar(&o.backend, "ownership", ownershipFiles, "where owners are kept: files (this machine) or etcd (a fleet sharing the spec)")
	f.StringSliceVar(&o.endpoints, "etcd-endpoints", nil, "etcd client URLs, comma-separated (with --ownership etcd)")
	f.StringVar(&o.cacert, "etcd-cacert", "", "PEM bundle that verifies the etcd servers' certificates")
	f.StringVar(&o.cert, "etcd-cert", "", "client certificate for etcd (PEM)")
	f.StringVar(&o.key, "etcd-key", "", "key of --etcd-cert (PEM)")
	f.StringVar(&o.user, "etcd-user", "", "etcd user; its password comes from --etcd-password-file or $"+daemonproto.EtcdPasswordEnv)
	f.StringVar(&o.passwordFile, "etcd-password-file", "", "file holding the etcd password, one line")
	f.DurationVar(&o.leaseTTL, "lease-ttl", 10*time.Second, "lease TTL in a fleet: a lost machine's bots run elsewhere within about this plus their ready time")
	f.StringVar(&o.machineID, "machine-id", "", "this machine's name in the fleet (default: the hostname)")
	f.StringVar(&o.prefix, "etcd-prefix", etcdstore.DefaultPrefix, "etcd key prefix of this fleet's records")
}

// check validates the flags and reads the password, before anything runs.
func (o *fleetFlags) check() error {
	switch o.backend {
	case ownershipFiles:
		return nil
	case ownershipEtcd:
	default:
		return fmt.Errorf("--ownership %q: want files or etcd", o.backend)
	}
	if len(o.endpoints) == 0 {
		return errors.New("--ownership etcd needs --etcd-endpoints")
	}
	if o.machineID == "" {
		h, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("--machine-id not given and the hostname unreadable: %w", err)
		}
		o.machineID = h
	}
	if o.leaseTTL < etcdstore.MinLeaseTTL || o.leaseTTL%time.Second != 0 {
		return fmt.Errorf("--lease-ttl %s: want whole seconds, at least %s", o.leaseTTL, etcdstore.MinLeaseTTL)
	}
	if !strings.HasPrefix(o.prefix, "/") || strings.HasSuffix(o.prefix, "/") {
		return fmt.Errorf("--etcd-prefix %q: want an absolute key prefix without a trailing slash", o.prefix)
	}
	// Absolute, so the daemons, which run from /, read the same files.
	for _, p := range []*string{&o.cacert, &o.cert, &o.key, &o.passwordFile} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return fmt.Errorf("%s: %w", *p, err)
			}
			*p = abs
		}
	}
	o.password = os.Getenv(daemonproto.EtcdPasswordEnv)
	if o.passwordFile != "" {
		pw, err := etcdstore.ReadPassword(o.passwordFile)
		if err != nil {
			return err
		}
		o.password = pw
	}
	// A client is made here once, so every error of the flags shows now
	// rather than at the first spawn.
	cli, err := o.dial()
	if err != nil {
		return err
	}
	return cli.Close()
}

func (o *fleetFlags) dial() (*clientv3.Client, error) {
	return etcdstore.Dial(etcdstore.DialOptions{Endpoints: o.endpoints, CACert: o.cacert, Cert: o.cert, Key: o.key, User: o.user, Password: o.password})
}

// fleetStore is an etcdstore.Store that closes its client with it; it
// keeps the fleet's holds too.
type fleetStore struct {
	*etcdstore.Store
	cli *clientv3.Client
}

var _ reconcile.Holds = (*fleetStore)(nil)

func (s *fleetStore) Close() error {
	err := s.Store.Close()
	if cerr := s.cli.Close(); err == nil {
		err = cerr
	}
	return err
}

// open opens the chosen backend over agentDir, and where it keeps the
// operator's holds: this machine's holds.json, or in a fleet the fleet's
// etcd, so that a stop on any machine holds the name on every machine.
// The caller closes the store.
func (o *fleetFlags) open(agentDir string, log logr.Logger) (ownership.Store, reconcile.Holds, error) {
	if o.backend != ownershipEtcd {
		return fsstore.New(agentDir, fsstore.Options{Log: log}), reconcile.FileHolds(agentDir), nil
	}
	s, err := o.openFleet(agentDir, log)
	if err != nil {
		return nil, nil, err
	}
	return s, reconcile.FleetHolds(s, agentDir), nil
}

// openFleet opens the fleet's etcd store over agentDir.
func (o *fleetFlags) openFleet(agentDir string, log logr.Logger) (*fleetStore, error) {
	cli, err := o.dial()
	if err != nil {
		return nil, err
	}
	s, err := etcdstore.New(etcdstore.Options{Client: cli, AgentDir: agentDir, Machine: o.machineID, LeaseTTL: o.leaseTTL, Prefix: o.prefix, Log: log})
	if err != nil {
		_ = cli.Close()
		return nil, err
	}
	return &fleetStore{Store: s, cli: cli}, nil
}

// daemonOwners is the chosen backend as a daemon uses it: where it takes
// its name from, closed when the daemon exits.
type daemonOwners struct {
	chat.Owners
	io.Closer
}

// openOwners opens the chosen backend for a daemon over agentDir. This is
// the one place a daemon's fleet wiring is made: in a fleet the relay
// posts from the fleet's bus and keeps its journal there, every write
// fenced by the name's claim; on one machine it uses the name's bus here.
func (o *fleetFlags) openOwners(agentDir string, log logr.Logger) (daemonOwners, error) {
	if o.backend != ownershipEtcd {
		s := fsstore.New(agentDir, fsstore.Options{Log: log})
		return daemonOwners{chat.LocalOwners(s), s}, nil
	}
	s, err := o.openFleet(agentDir, log)
	if err != nil {
		return daemonOwners{}, err
	}
	return daemonOwners{fleetOwners{store: s.Store, agentDir: agentDir, log: log}, s}, nil
}

// fleetOwners take names in a fleet's etcd, each with the fleet's bus of
// its claim.
type fleetOwners struct {
	store    *etcdstore.Store
	agentDir string
	log      logr.Logger
}

func (f fleetOwners) Acquire(name string, req ownership.AcquireRequest) (ownership.Claim, chat.SharedBus, error) {
	local, err := bus.Paths(f.agentDir, name)
	if err != nil {
		return nil, nil, err
	}
	c, err := f.store.AcquireClaim(name, req)
	if err != nil {
		return nil, nil, err
	}
	return c, fleetbus.ForRelay(c, local, f.log.WithName("fleet-outbox")), nil
}

// daemonArgs are the flags a spawned daemon needs to hold its name where
// this reconciler looks. The password is not among them: the daemon reads
// the same file, or is given it on stdin (daemonSecrets).
func (o *fleetFlags) daemonArgs() []string {
	if o.backend != ownershipEtcd {
		return nil
	}
	args := []string{"--ownership", ownershipEtcd, "--etcd-endpoints", strings.Join(o.endpoints, ","),
		"--machine-id", o.machineID, "--lease-ttl", o.leaseTTL.String(), "--etcd-prefix", o.prefix}
	for _, f := range []struct{ flag, v string }{
		{"--etcd-cacert", o.cacert}, {"--etcd-cert", o.cert}, {"--etcd-key", o.key},
		{"--etcd-user", o.user}, {"--etcd-password-file", o.passwordFile},
	} {
		if f.v != "" {
			args = append(args, f.flag, f.v)
		}
	}
	return args
}

// daemonSecrets are what a spawned daemon is given on stdin: the etcd
// password when it came from the environment, which daemons do not
// inherit (daemonproto.Env).
func (o *fleetFlags) daemonSecrets() daemonproto.Secrets {
	if o.backend != ownershipEtcd || o.passwordFile != "" {
		return daemonproto.Secrets{}
	}
	return daemonproto.Secrets{EtcdPassword: o.password}
}

// forward runs, in a fleet, the forwarder of this machine's outboxes into
// etcd and the follower of the fleet's inbox (DESIGN 10) for every name
// the loop's spec declares, until ctx ends or the returned stop is called:
// what any machine writes is posted, and what the owner lands reaches
// every machine's inbox. On one machine it does nothing.
func (o *fleetFlags) forward(ctx context.Context, agentDir string, loop *reconcile.Loop, log logr.Logger) (stop func(), err error) {
	if o.backend != ownershipEtcd {
		return func() {}, nil
	}
	cli, err := o.dial()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	names := func() []string {
		res, err := loop.Spec(ctx)
		if err != nil || res == nil {
			return nil
		}
		names := make([]string, 0, len(res.Daemons))
		for _, d := range res.Daemons {
			names = append(names, d.Name())
		}
		return names
	}
	f := &fleetbus.Forwarder{Client: cli, Prefix: o.prefix, AgentDir: agentDir, Log: log.WithName("forward"), Names: names}
	in := &fleetbus.InboxFollower{Client: cli, Prefix: o.prefix, AgentDir: agentDir, Log: log.WithName("fleet-inbox"), Names: names}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := f.Run(ctx); err != nil {
			log.Error(err, "forwarding this machine's outboxes to the fleet stopped")
		}
	}()
	go func() {
		defer wg.Done()
		if err := in.Run(ctx); err != nil {
			log.Error(err, "following the fleet's inbox stopped; replies landed elsewhere do not reach this machine")
		}
	}()
	return func() {
		cancel()
		wg.Wait()
		_ = cli.Close()
	}, nil
}
