package ownership

import (
	"encoding/json"
	"fmt"

	"gjc.dev/reconciler/pkg/incarnation"
	"gjc.dev/reconciler/pkg/spec"
)

// legacyKeys is the exact key set of a pre-upgrade record (the reference's
// isExactPreUpgradeUnavailableChatDaemonState); stoppedAt is optional.
var legacyKeys = []string{
	"version", "kind", "pid", "ownerId", "identity", "incarnation",
	"startedAt", "heartbeatAt", "transportHealthy", "stoppedAt",
}

// ParseState judges data as a state.json record with the reference's rules
// (hasSafeChatDaemonOwnerShape, hasSafeChatDaemonStateShape,
// isExactPreUpgradeUnavailableChatDaemonState) and this project's additions:
//
//   - version is 1; kind is a known provider; pid is a safe integer > 0;
//     ownerId and identity are non-empty strings; incarnation is valid
//     (incarnation.Valid); startedAt and heartbeatAt are finite
//     numbers; transportHealthy is a boolean; stoppedAt is absent or a
//     finite number; generation is absent (a legacy generation) or a safe
//     integer >= 0. null is never "absent".
//   - Numbers are judged as JavaScript reads them, so a pid of 1.0 or 1e0
//     is the integer 1 (Number.isSafeInteger(1.0) is true) and a generation
//     of -0 is 0.
//   - Stricter than the reference: times must be integral milliseconds
//     within the safe integer range (State holds them as int64, and every
//     writer, Date.now() included, writes integers); transportError, when
//     present, is a string and terminated an object with a non-empty string
//     reason and a string message; a key that appears twice makes the record
//     malformed; relay, when present, is judged whole (parserelay.go), an
//     unknown key in it included, and so is logins (logins.go);
//     transportReason, when present, is a CamelCase word (ValidReason)
//     beside a transportError. A later version that adds to these is
//     read as malformed here, and touched by nothing: an older reconciler
//     never acts on a record it cannot fully read.
//   - Other keys are ignored, except that the legacy record is recognised
//     only with exactly the old key set (stoppedAt optional) and incarnation
//     "unavailable"; legacy is then true and Incarnation is "unavailable".
//
// The error is a *MalformedError naming the first field at fault.
func ParseState(data []byte) (st *State, legacy bool, err error) {
	obj, err := parseObject(data)
	if err != nil {
		return nil, false, &MalformedError{Path: StateFile, Err: err}
	}
	f := fields{obj: obj, file: StateFile}
	s := &State{Version: RecordVersion}
	f.version()
	s.Kind = f.kind()
	s.PID = f.pid("pid")
	s.OwnerID = f.nonEmpty("ownerId")
	s.Identity = f.nonEmpty("identity")
	s.Incarnation, legacy = f.incarnation(obj)
	s.StartedAt = f.time("startedAt")
	s.HeartbeatAt = f.time("heartbeatAt")
	s.TransportHealthy = f.boolean("transportHealthy")
	s.StoppedAt = f.optionalTime("stoppedAt")
	s.Generation = f.generation()
	// Free text (a remote server's error, a stopper's reason) that status,
	// waits and failures print to a terminal: one line, no control
	// characters, so an escape sequence in a record never reaches it.
	s.TransportError = OneLine(f.optionalString("transportError"))
	s.TransportReason = f.reason("transportReason")
	if s.TransportReason != "" && s.TransportError == "" && f.err == nil {
		f.fail("transportReason", "is only written beside a transportError, got none")
	}
	s.Terminated = f.terminated()
	s.BootID = f.optionalString("bootId")
	s.Machine = OneLine(f.optionalString("machine"))
	s.Relay = f.relay() // parserelay.go
	s.Logins = f.logins()
	if f.err != nil {
		return nil, false, f.err
	}
	return s, legacy, nil
}

// fields checks an object's fields one by one; the first failure sticks.
type fields struct {
	obj  object
	file string
	err  *MalformedError
}

func (f *fields) fail(field, format string, args ...any) {
	if f.err == nil {
		f.err = &MalformedError{Path: f.file, Field: field, Err: fmt.Errorf(format, args...)}
	}
}

// required returns the raw value of key, failing if it is missing.
func (f *fields) required(key string) (json.RawMessage, bool) {
	raw, ok := f.obj.get(key)
	if !ok {
		f.fail(key, "missing")
	}
	return raw, ok && f.err == nil
}

func (f *fields) version() {
	raw, ok := f.required("version")
	if !ok {
		return
	}
	if v, ok := jsNumber(raw); !ok || v != RecordVersion {
		f.fail("version", "must be %d, got %s", RecordVersion, shown(raw))
	}
}

func (f *fields) kind() string {
	raw, ok := f.required("kind")
	if !ok {
		return ""
	}
	k, ok := jsString(raw)
	if !ok || !KnownKind(k) {
		f.fail("kind", "must be one of %q, got %s", Kinds(), shown(raw))
	}
	return k
}

// pid is a safe integer > 0, as Number.isSafeInteger(pid) && pid > 0.
func (f *fields) pid(key string) int {
	raw, ok := f.required(key)
	if !ok {
		return 0
	}
	v, ok := jsNumber(raw)
	if !ok || !isSafeInteger(v) || v <= 0 {
		f.fail(key, "must be a safe integer > 0, got %s", shown(raw))
		return 0
	}
	return int(v)
}

func (f *fields) nonEmpty(key string) string {
	raw, ok := f.required(key)
	if !ok {
		return ""
	}
	s, ok := jsString(raw)
	if !ok || s == "" {
		f.fail(key, "must be a non-empty string, got %s", shown(raw))
	}
	return s
}

// incarnation accepts a valid incarnation, or "unavailable" in a record
// with exactly the legacy key set.
func (f *fields) incarnation(obj object) (string, bool) {
	raw, ok := f.required("incarnation")
	if !ok {
		return "", false
	}
	s, ok := jsString(raw)
	switch {
	case !ok:
		f.fail("incarnation", "must be a string, got %s", shown(raw))
	case s == LegacyIncarnation:
		for _, m := range obj {
			if !isLegacyKey(string(m.key)) {
				f.fail("incarnation", "%q has no authority, and key %q makes this not the exact legacy record", s, m.key)
				return s, false
			}
		}
		return s, true
	case !incarnation.Valid(s):
		f.fail("incarnation", "%s is not a valid incarnation", shown(raw))
	}
	return s, false
}

func isLegacyKey(k string) bool {
	for _, l := range legacyKeys {
		if k == l {
			return true
		}
	}
	return false
}

// time is a finite number (the reference) that is also an integral number
// of milliseconds in the safe range (ours: State holds int64 ms).
func (f *fields) time(key string) int64 {
	raw, ok := f.required(key)
	if !ok {
		return 0
	}
	return f.timeValue(key, raw)
}

func (f *fields) timeValue(key string, raw json.RawMessage) int64 {
	v, ok := jsNumber(raw)
	switch {
	case !ok || !isFinite(v):
		f.fail(key, "must be a finite number, got %s", shown(raw))
	case !isSafeInteger(v):
		f.fail(key, "must be an integral number of milliseconds, got %s", shown(raw))
	}
	return int64(v)
}

func (f *fields) optionalTime(key string) *int64 {
	raw, ok := f.obj.get(key)
	if !ok || f.err != nil {
		return nil
	}
	t := f.timeValue(key, raw)
	return &t
}

func (f *fields) boolean(key string) bool {
	raw, ok := f.required(key)
	if !ok {
		return false
	}
	b, ok := jsBool(raw)
	if !ok {
		f.fail(key, "must be a boolean, got %s", shown(raw))
	}
	return b
}

// generation is absent (a legacy owner, replaceable) or a safe integer
// >= 0; null, negative, fractional or a string is malformed.
func (f *fields) generation() spec.OptGeneration {
	raw, ok := f.obj.get("generation")
	if !ok || f.err != nil {
		return spec.NoGeneration
	}
	v, ok := jsNumber(raw)
	if !ok || !isSafeInteger(v) || v < 0 {
		f.fail("generation", "must be absent or a safe integer >= 0, got %s", shown(raw))
		return spec.NoGeneration
	}
	return spec.Generation(v).Opt() // -0 becomes 0
}

func (f *fields) optionalString(key string) string {
	raw, ok := f.obj.get(key)
	if !ok || f.err != nil {
		return ""
	}
	s, ok := jsString(raw)
	if !ok {
		f.fail(key, "must be a string when present, got %s", shown(raw))
	}
	return s
}

// reason reads an optional CamelCase reason: it becomes a status
// condition's reason, whose syntax is strict.
func (f *fields) reason(key string) string {
	s := f.optionalString(key)
	if s != "" && !ValidReason(s) {
		raw, _ := f.obj.get(key)
		f.fail(key, "must be a CamelCase word of at most %d letters and digits, got %s", maxReason, shown(raw))
		return ""
	}
	return s
}

func (f *fields) terminated() *Terminated {
	raw, ok := f.obj.get("terminated")
	if !ok || f.err != nil {
		return nil
	}
	fail := func() *Terminated {
		f.fail("terminated", "must be an object with a non-empty string reason and a string message, got %s", shown(raw))
		return nil
	}
	if jsType(raw) != "object" {
		return fail()
	}
	obj, err := parseObject(raw)
	if err != nil {
		return fail()
	}
	r, rok := obj.get("reason")
	m, mok := obj.get("message")
	if !rok || !mok {
		return fail()
	}
	reason, rok := jsString(r)
	message, mok := jsString(m)
	if !rok || !mok || reason == "" {
		return fail()
	}
	return &Terminated{Reason: OneLine(reason), Message: OneLine(message)}
}
