package ownership

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// RecordVersion is the only record version there is (the reference's 1).
const RecordVersion = 1

// Kinds are the providers a record's kind may name: the reference's
// ChatDaemonKind. A record of any other kind is malformed, as in the
// reference, so this list only grows together with the parser.
var kinds = []string{"discord", "slack"}

// KnownKind reports whether kind is a provider a record may name.
func KnownKind(kind string) bool { return slices.Contains(kinds, kind) }

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
	Version          int         `json:"version"`
	Kind             string      `json:"kind"` // the provider (reference name); the directory holds the name
	PID              int         `json:"pid"`
	OwnerID          string      `json:"ownerId"`
	Identity         string      `json:"identity"`
	Incarnation      string      `json:"incarnation"`
	StartedAt        int64       `json:"startedAt"`   // unix ms
	HeartbeatAt      int64       `json:"heartbeatAt"` // unix ms
	TransportHealthy bool        `json:"transportHealthy"`
	Generation       *int64      `json:"generation,omitempty"` // nil: a legacy record written before generations
	StoppedAt        *int64      `json:"stoppedAt,omitempty"`  // unix ms; set once released
	TransportError   string      `json:"transportError,omitempty"`
	Terminated       *Terminated `json:"terminated,omitempty"`
	// BootID names the boot the owner started in (platform.BootID). It
	// proves a record from a previous boot even when the wall clock was
	// stepped since; records without it fall back to comparing startedAt
	// with the boot time.
	BootID string `json:"bootId,omitempty"`
}

// Marshal returns the record as the reference writes it: JSON.stringify
// with the keys in the reference's order (version, kind, pid, ownerId,
// identity, incarnation, startedAt, heartbeatAt, transportHealthy,
// generation, stoppedAt), then this project's optional transportError,
// terminated and bootId, then "\n". Absent optional fields are omitted, never null.
func (s *State) Marshal() []byte {
	var w jsWriter
	w.b = make([]byte, 0, 320)
	w.open()
	w.key("version").int(int64(s.Version))
	w.key("kind").str(s.Kind)
	w.key("pid").int(int64(s.PID))
	w.key("ownerId").str(s.OwnerID)
	w.key("identity").str(s.Identity)
	w.key("incarnation").str(s.Incarnation)
	w.key("startedAt").int(s.StartedAt)
	w.key("heartbeatAt").int(s.HeartbeatAt)
	w.key("transportHealthy").bool(s.TransportHealthy)
	if s.Generation != nil {
		w.key("generation").int(*s.Generation)
	}
	if s.StoppedAt != nil {
		w.key("stoppedAt").int(*s.StoppedAt)
	}
	if s.TransportError != "" {
		w.key("transportError").str(s.TransportError)
	}
	if s.Terminated != nil {
		w.key("terminated").open()
		w.key("reason").str(s.Terminated.Reason)
		w.key("message").str(s.Terminated.Message)
		w.close()
	}
	if s.BootID != "" {
		w.key("bootId").str(s.BootID)
	}
	w.close()
	return append(w.b, '\n')
}

// clone returns a deep copy, so a caller cannot change an Owner's State
// through its pointers.
func (s State) clone() State {
	if s.Generation != nil {
		g := *s.Generation
		s.Generation = &g
	}
	if s.StoppedAt != nil {
		t := *s.StoppedAt
		s.StoppedAt = &t
	}
	if s.Terminated != nil {
		t := *s.Terminated
		s.Terminated = &t
	}
	return s
}

// jsWriter writes JSON exactly as JavaScript's JSON.stringify does for the
// values these records hold, so what a reference reader compares byte for
// byte matches. encoding/json differs: it escapes <, >, & and U+2028/U+2029.
type jsWriter struct {
	b     []byte
	comma bool // a member was written at this level
}

func (w *jsWriter) open() *jsWriter  { w.b = append(w.b, '{'); w.comma = false; return w }
func (w *jsWriter) close() *jsWriter { w.b = append(w.b, '}'); w.comma = true; return w }

func (w *jsWriter) key(k string) *jsWriter {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.str(k)
	w.b = append(w.b, ':')
	w.comma = false
	return w
}

func (w *jsWriter) int(n int64) { w.b = strconv.AppendInt(w.b, n, 10); w.comma = true }

func (w *jsWriter) bool(v bool) { w.b = strconv.AppendBool(w.b, v); w.comma = true }

// str quotes s as JSON.stringify does: the two-character escapes for
// \b \f \n \r \t " and \\, \u00xx (lower-case hex) for other control
// characters, everything else as is. Go strings may hold invalid UTF-8,
// which no JavaScript string can: each invalid byte becomes U+FFFD, which
// is also what reading it back produces.
func (w *jsWriter) str(s string) {
	const hex = "0123456789abcdef"
	w.b = append(w.b, '"')
	for _, r := range s {
		switch {
		case r == '"':
			w.b = append(w.b, '\\', '"')
		case r == '\\':
			w.b = append(w.b, '\\', '\\')
		case r == '\b':
			w.b = append(w.b, '\\', 'b')
		case r == '\f':
			w.b = append(w.b, '\\', 'f')
		case r == '\n':
			w.b = append(w.b, '\\', 'n')
		case r == '\r':
			w.b = append(w.b, '\\', 'r')
		case r == '\t':
			w.b = append(w.b, '\\', 't')
		case r < 0x20:
			w.b = append(w.b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			w.b = utf8.AppendRune(w.b, r) // utf8.RuneError for invalid bytes
		}
	}
	w.b = append(w.b, '"')
	w.comma = true
}
