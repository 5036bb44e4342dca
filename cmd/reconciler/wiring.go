package main

import (
	"strconv"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/events"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// reconcileOptions wires the reconciler of agentDir to the backend the
// flags chose: this machine's files and kernel locks, or a fleet's etcd.
// The reconciler's Close closes the store. Its daemons log at verbosity
// too, so a -v loop's daemons say what their relays do.
func reconcileOptions(fleet *fleetFlags, agentDir string, log logr.Logger, heartbeat time.Duration, verbosity int) (reconcile.Options, error) {
	store, holds, err := fleet.open(agentDir, log)
	if err != nil {
		return reconcile.Options{}, err
	}
	args := fleet.daemonArgs()
	if verbosity > 0 {
		args = append(args, "-v", strconv.Itoa(verbosity))
	}
	return reconcile.Options{
		AgentDir: agentDir, Log: log, DaemonHeartbeat: heartbeat, DaemonArgs: args, DaemonSecrets: fleet.daemonSecrets(),
		Store: store, Holds: holds,
		Events: events.Open(reconcile.EventsPath(agentDir), log),
	}, nil
}

// view is `status`'s live look at agentDir. It reads the spec as a loop
// starting now would, a broken file keeping what lastgood.json saved.
func view(fleet *fleetFlags, agentDir, specPath string, names []string) (*reconcile.Status, error) {
	loader := spec.NewLoader(specPath)
	reconcile.UseLastGood(agentDir, loader, logr.Discard())
	store, holds, err := fleet.open(agentDir, logr.Discard())
	if err != nil {
		return nil, err
	}
	defer store.Close()
	return reconcile.View(store, holds, agentDir, loader.Load(), names)
}
