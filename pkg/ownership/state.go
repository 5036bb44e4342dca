package ownership

import (
	"gjc.dev/reconciler/pkg/ownership/internal/jswriter"
	"gjc.dev/reconciler/pkg/spec"
	"slices"
)

// RecordVersion is the only record version there is (the reference's 1).
const RecordVersion = 1

// Kinds are the providers a record's kind may name: the reference's
// ChatDaemonKind, and telegram, which the reference never runs (so its
// parser never meets a record of that kind). A record of any other kind
// is malformed, as in the reference, so this list only grows together
// with the parser.
var kinds = []string{"discord", "slack", "telegram"}

// KnownKind reports whether kind is a provider a record may name.
func KnownKind(kind string) bool { return slices.Contains(kinds, kind) }

// Kinds lists the providers a record may name.
func Kinds() []string { return slices.Clone(kinds) }

// Terminated says why a daemon exited for good (a terminal transport error
// such as invalid credentials): the reconciler does not respawn it until
// its identity or generation changes. This project's field; readers of the
// reference ignore it.
type Terminated struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// State is state.json: what the owning daemon publishes about itself.
//
// The json tags name the same keys in the same order, for callers that
// embed a State in their own JSON (status); the record file itself is
// written by Marshal.
type State struct {
	Version          int                `json:"version"`
	Kind             string             `json:"kind"` // the provider (reference name); the directory holds the name
	PID              int                `json:"pid"`
	OwnerID          string             `json:"ownerId"`
	Identity         string             `json:"identity"`
	Incarnation      string             `json:"incarnation"`
	StartedAt        int64              `json:"startedAt"`   // unix ms
	HeartbeatAt      int64              `json:"heartbeatAt"` // unix ms
	TransportHealthy bool               `json:"transportHealthy"`
	Generation       spec.OptGeneration `json:"generation,omitzero"` // none: a legacy record written before generations
	StoppedAt        *int64             `json:"stoppedAt,omitempty"` // unix ms; set once released
	TransportError   string             `json:"transportError,omitempty"`
	// TransportReason names, with TransportError, a cause reconnecting
	// will not fix (daemonproto's TokenInUse, ...): the name is Degraded
	// with it. A CamelCase word (ValidReason), since it becomes a status
	// condition's reason.
	TransportReason string      `json:"transportReason,omitempty"`
	Terminated      *Terminated `json:"terminated,omitempty"`
	// BootID names the boot the owner started in (platform.BootID). It
	// proves a record from a previous boot even when the wall clock was
	// stepped since; records without it fall back to comparing startedAt
	// with the boot time.
	BootID string `json:"bootId,omitempty"`
	// Machine is the machine the owner runs on, in a fleet (etcdstore);
	// "" on one machine.
	Machine string `json:"machine,omitempty"`
	// Relay is the relay's health (DESIGN 5), nil while the daemon runs
	// no relay or has not reported one.
	Relay *RelayState `json:"relay,omitempty"`
	// Logins is the service's count of the bot's logins, as the daemon
	// last read it; nil when it read none.
	Logins *Logins `json:"logins,omitempty"`
}

// Marshal returns the record as the reference writes it: JSON.stringify
// with the keys in the reference's order (version, kind, pid, ownerId,
// identity, incarnation, startedAt, heartbeatAt, transportHealthy,
// generation, stoppedAt), then this project's optional transportError,
// transportReason, terminated, bootId, machine, relay (its keys in RelayState's order) and logins, then "\n". Absent optional fields are omitted, never null.
func (s *State) Marshal() []byte {
	w := jswriter.New(320)
	w.Open()
	w.Key("version").Int(int64(s.Version))
	w.Key("kind").Str(s.Kind)
	w.Key("pid").Int(int64(s.PID))
	w.Key("ownerId").Str(s.OwnerID)
	w.Key("identity").Str(s.Identity)
	w.Key("incarnation").Str(s.Incarnation)
	w.Key("startedAt").Int(s.StartedAt)
	w.Key("heartbeatAt").Int(s.HeartbeatAt)
	w.Key("transportHealthy").Bool(s.TransportHealthy)
	if g, ok := s.Generation.Get(); ok {
		w.Key("generation").Int(int64(g))
	}
	if s.StoppedAt != nil {
		w.Key("stoppedAt").Int(*s.StoppedAt)
	}
	if s.TransportError != "" {
		w.Key("transportError").Str(s.TransportError)
	}
	if s.TransportReason != "" {
		w.Key("transportReason").Str(s.TransportReason)
	}
	if s.Terminated != nil {
		w.Key("terminated").Open()
		w.Key("reason").Str(s.Terminated.Reason)
		w.Key("message").Str(s.Terminated.Message)
		w.Close()
	}
	if s.BootID != "" {
		w.Key("bootId").Str(s.BootID)
	}
	if s.Machine != "" {
		w.Key("machine").Str(s.Machine)
	}
	if s.Relay != nil {
		s.Relay.marshal(w.Key("relay"))
	}
	if s.Logins != nil {
		s.Logins.marshal(w.Key("logins"))
	}
	w.Close()
	return append(w.Bytes(), '\n')
}

// Clone returns a deep copy, so a caller cannot change an Owner's State
// through its pointers.
func (s State) Clone() State {
	if s.StoppedAt != nil {
		t := *s.StoppedAt
		s.StoppedAt = &t
	}
	if s.Terminated != nil {
		t := *s.Terminated
		s.Terminated = &t
	}
	s.Relay = s.Relay.Clone()
	s.Logins = s.Logins.Clone()
	return s
}
