package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/spec"
)

// Phase is a daemon's observed lifecycle phase.
type Phase string

const (
	PhaseRunning          Phase = "Running"
	PhaseStarting         Phase = "Starting"
	PhaseReplacing        Phase = "Replacing"
	PhaseStopped          Phase = "Stopped"
	PhaseCrashLoopBackOff Phase = "CrashLoopBackOff"
	PhaseRefused          Phase = "Refused"
	PhaseUnmanaged        Phase = "Unmanaged"
	PhaseHeld             Phase = "Held" // stopped by an operator, until reconciler start
)

// Condition types of every daemon's status.
const (
	ConditionReady       = "Ready"
	ConditionProgressing = "Progressing"
	ConditionDegraded    = "Degraded"
	ConditionSpecValid   = "SpecValid"
)

// Status is status.json: what the last pass saw and did.
type Status struct {
	Version    int            `json:"version"`
	ObservedAt metav1.Time    `json:"observedAt"`
	SpecValid  bool           `json:"specValid"`
	SpecErrors []string       `json:"specErrors,omitempty"`
	Daemons    []DaemonStatus `json:"daemons"`
	// Problems are entries of the files the reconciler read that it would
	// not act on (names that cannot be a daemon's): each keeps the pass
	// from converging until a person fixes the file.
	Problems []Problem `json:"problems,omitempty"`
	// Keeping is, while the spec is invalid, what stands in for each
	// broken file and which names are acted on.
	Keeping *SpecKeeping `json:"keeping,omitempty"`
	// Wakes counts what woke the loop since it started, by trigger, and
	// Reconciles how many single-name reconciles ran: an idle loop's counts
	// grow with the daemons' heartbeats and nothing else.
	Wakes      map[string]int64 `json:"wakes,omitempty"`
	Reconciles int64            `json:"reconciles,omitempty"`
}

// DaemonStatus is one name's observed state.
type DaemonStatus struct {
	Name              string             `json:"name"`
	Provider          string             `json:"provider,omitempty"`
	DesiredState      string             `json:"desiredState,omitempty"`
	DesiredGeneration spec.OptGeneration `json:"desiredGeneration,omitzero"`
	Phase             Phase              `json:"phase"`
	PID               int                `json:"pid,omitempty"`
	OwnerID           string             `json:"ownerId,omitempty"`
	// Machine is the machine the owner runs on, in a fleet; "" on one
	// machine.
	Machine string `json:"machine,omitempty"`
	// Election is, in a fleet, which machine leads the name (places its
	// daemon) as a live look saw it; nil on one machine.
	Election   *Election          `json:"election,omitempty"`
	Generation spec.OptGeneration `json:"generation,omitzero"`
	StartedAt  *metav1.Time       `json:"startedAt,omitempty"`
	Restarts   int                `json:"restarts"`
	Converged  bool               `json:"converged"`
	Reason     string             `json:"reason,omitempty"`
	Message    string             `json:"message,omitempty"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// TransportError is what the live owner last said about its
	// connection (its record's transportError), empty when connected or
	// when no owner runs: the why of a daemon that is not Ready.
	TransportError string `json:"transportError,omitempty"`
	// Relay is the owner's outbox as it last published it; nil until the
	// relay (DESIGN 5) reports one, and shown as "-", never as zero.
	Relay *RelayStatus `json:"relay,omitempty"`
	// Logins is the service's count of the bot's logins in its current
	// window as the owner last read it (Discord's session starts); nil
	// when it read none.
	Logins *LoginsStatus `json:"logins,omitempty"`
	// TrackedOwner is the live owner the reconciler that wrote this last proved
	// and held a process reference to, whether or not its record is still
	// there. A report: the next reconciler learns of it from held.json
	// (TrackedPath), which deleting status.json does not touch. Not refreshed
	// by `reconciler status`.
	TrackedOwner *TrackedOwner `json:"heldOwner,omitempty"`
	// LastExit is how the last owner seen running ended, kept until the
	// next one ends: describe shows it beside a healthy successor.
	LastExit *Exit `json:"lastExit,omitempty"`
}

// TrackedOwner names a process exactly: PID and incarnation, within one boot
// (Linux start ticks count from boot, and boot order repeats).
type TrackedOwner struct {
	PID         int    `json:"pid"`
	Incarnation string `json:"incarnation"`
	OwnerID     string `json:"ownerId"`
	BootID      string `json:"bootId,omitempty"`
}

// newStatus starts a status observed at t for a spec result.
func newStatus(t time.Time, res *spec.Result) *Status {
	s := &Status{Version: 1, ObservedAt: metav1.NewTime(t), SpecValid: res.Valid(), Keeping: keepingOf(res)}
	for _, e := range res.Errors {
		s.SpecErrors = append(s.SpecErrors, e.String())
	}
	return s
}

// ReadStatus reads status.json; a missing file is an empty status. An
// entry whose name is not valid is left out and added to Problems.
func ReadStatus(agentDir string) (*Status, error) {
	s, bad, err := readStatus(agentDir)
	if err != nil {
		return nil, err
	}
	s.Problems = sortProblems(append(s.Problems, bad...))
	return s, nil
}

// readStatus reads status.json, leaving out the entries whose names are not
// valid and returning them apart from the Problems the file itself reports.
func readStatus(agentDir string) (*Status, []Problem, error) {
	path := StatusPath(agentDir)
	data, err := atomicfile.ReadCapped(path, 16<<20)
	if errors.Is(err, os.ErrNotExist) {
		return &Status{Version: 1}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading status: %w", err)
	}
	var s Status
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, nil, fmt.Errorf("status %s is not valid JSON: %w", path, err)
	}
	var bad []Problem
	s.Daemons = slices.DeleteFunc(s.Daemons, func(d DaemonStatus) bool {
		if p := badName(path, d.Name); p != nil {
			bad = append(bad, *p)
			return true
		}
		return false
	})
	return &s, bad, nil
}

func writeStatus(agentDir string, s *Status) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(StatusPath(agentDir), append(data, '\n'))
}

// Election is a fleet's election of a name: the machine that leads it,
// "" while none does, and this machine, so a reader knows which is which.
type Election struct {
	Leader string `json:"leader"`
	Self   string `json:"self"`
	Error  string `json:"error,omitempty"`
}
