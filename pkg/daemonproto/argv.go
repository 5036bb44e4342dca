package daemonproto

import (
	"time"

	"gjc.dev/reconciler/pkg/spec"
)

// Claim is who a daemon's command line says it is: the daemon of Name in
// AgentDir, running as OwnerID ("" where no owner is named, as in a
// lock). The command line is all a process shows of itself to another,
// so it is the daemon's proof of who it is; the config that says what it
// connects to comes on stdin.
type Claim struct {
	AgentDir string
	Name     string
	OwnerID  string
}

// The daemon's command line: `<exe> daemon --agent-dir D --name N
// --owner-id O --generation G [--heartbeat-interval I]`. Any user's ps
// reads it: nothing secret ever goes here.
const (
	Command        = "daemon"
	FlagAgentDir   = "agent-dir"
	FlagName       = "name"
	FlagOwnerID    = "owner-id"
	FlagGeneration = "generation"
	FlagHeartbeat  = "heartbeat-interval"
)

// Args returns the arguments (after the executable) that start the daemon
// of c at generation, followed by extra flags (HeartbeatArgs).
func Args(c Claim, generation spec.Generation, extra ...string) []string {
	args := []string{Command,
		"--" + FlagAgentDir, c.AgentDir,
		"--" + FlagName, c.Name,
		"--" + FlagOwnerID, c.OwnerID,
		"--" + FlagGeneration, generation.String()}
	return append(args, extra...)
}

// HeartbeatArgs returns the flag that sets a daemon's heartbeat interval
// to d, or none for d <= 0 (the daemon's own default). Tests shorten it so
// that "within one heartbeat" is short.
func HeartbeatArgs(d time.Duration) []string {
	if d <= 0 {
		return nil
	}
	return []string{"--" + FlagHeartbeat, d.String()}
}
