package main

import (
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/events"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// reconcileOptions wires the reconciler of agentDir to the one-machine
// backend: the files and kernel locks under agentDir.
func reconcileOptions(agentDir string, log logr.Logger, heartbeat time.Duration) reconcile.Options {
	return reconcile.Options{
		AgentDir: agentDir, Log: log, DaemonHeartbeat: heartbeat,
		Store: fsstore.New(agentDir, fsstore.Options{Log: log}), Files: fsstore.Files{},
		Events: events.Open(reconcile.EventsPath(agentDir), log),
	}
}

// view is `status`'s live look at agentDir. It reads the spec as a loop
// starting now would, a broken file keeping what lastgood.json saved.
func view(agentDir, specPath string, names []string) (*reconcile.Status, error) {
	loader := spec.NewLoader(specPath)
	reconcile.UseLastGood(fsstore.Files{}, agentDir, loader, logr.Discard())
	return reconcile.View(fsstore.New(agentDir, fsstore.Options{}), fsstore.Files{}, agentDir, loader.Load(), names)
}
