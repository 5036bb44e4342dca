package reconcile

import "path/filepath"

// controlDir is where the reconciler keeps its own state.
func controlDir(agentDir string) string { return filepath.Join(agentDir, "sdk", "reconciler") }

// StatusPath is the status file written after every pass.
func StatusPath(agentDir string) string { return filepath.Join(controlDir(agentDir), "status.json") }

// InventoryPath lists the names this reconciler has spawned.
func InventoryPath(agentDir string) string {
	return filepath.Join(controlDir(agentDir), "inventory.json")
}

// EventsPath is the event history (pkg/events), rotated beside itself.
func EventsPath(agentDir string) string { return filepath.Join(controlDir(agentDir), "events.jsonl") }

// LockPath is the flock that serializes passes across processes.
func LockPath(agentDir string) string { return filepath.Join(controlDir(agentDir), "lock") }

// daemonsDir holds one directory per daemon name.
func daemonsDir(agentDir string) string { return filepath.Join(agentDir, "sdk", "daemons") }
