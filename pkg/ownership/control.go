package ownership

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"gjc.dev/reconciler/pkg/incarnation"
	"gjc.dev/reconciler/pkg/ownership/internal/jswriter"
)

// Control actions.
const (
	ActionStop   = "stop"
	ActionReload = "reload"
)

// ControlRequest is control.json: a request to one exact owner, written by
// the controller before it signals. The daemon acts only on a request
// addressed to itself (Addressed).
type ControlRequest struct {
	Version     int    `json:"version"`
	RequestID   string `json:"requestId"`
	Action      string `json:"action"`
	OwnerID     string `json:"ownerId"`
	PID         int    `json:"pid"`
	Incarnation string `json:"incarnation"`
	CreatedAt   int64  `json:"createdAt"` // unix ms
}

// NewControlRequest returns a request with a fresh id, made at now, to the
// owner that decided names.
func NewControlRequest(action string, decided State, now time.Time) ControlRequest {
	return ControlRequest{
		Version: RecordVersion, RequestID: uuid.NewString(), Action: action,
		OwnerID: decided.OwnerID, PID: decided.PID, Incarnation: decided.Incarnation,
		CreatedAt: now.UnixMilli(),
	}
}

// Marshal returns the request as the reference writes it: keys version,
// requestId, action, ownerId, pid, incarnation, createdAt, then "\n".
func (c *ControlRequest) Marshal() []byte {
	w := jswriter.New(200)
	w.Open()
	w.Key("version").Int(int64(c.Version))
	w.Key("requestId").Str(c.RequestID)
	w.Key("action").Str(c.Action)
	w.Key("ownerId").Str(c.OwnerID)
	w.Key("pid").Int(int64(c.PID))
	w.Key("incarnation").Str(c.Incarnation)
	w.Key("createdAt").Int(c.CreatedAt)
	w.Close()
	return append(w.Bytes(), '\n')
}

// Validate refuses, with ErrInvalidRequest, a request that ParseControl
// would not read back: a writer calls it before writing one.
func (c *ControlRequest) Validate() error {
	switch {
	case c.Version != RecordVersion:
		return fmt.Errorf("%w: control version %d", ErrInvalidRequest, c.Version)
	case c.RequestID == "" || !utf8.ValidString(c.RequestID):
		return fmt.Errorf("%w: control requestId must be non-empty UTF-8", ErrInvalidRequest)
	case c.Action != ActionStop && c.Action != ActionReload:
		return fmt.Errorf("%w: control action %q", ErrInvalidRequest, c.Action)
	case c.OwnerID == "" || !utf8.ValidString(c.OwnerID):
		return fmt.Errorf("%w: control ownerId must be non-empty UTF-8", ErrInvalidRequest)
	case c.PID <= 0 || c.PID > maxSafeInteger:
		return fmt.Errorf("%w: control pid %d", ErrInvalidRequest, c.PID)
	case !incarnation.Valid(c.Incarnation):
		return fmt.Errorf("%w: control incarnation %q has no authority", ErrInvalidRequest, c.Incarnation)
	case c.CreatedAt < -maxSafeInteger || c.CreatedAt > maxSafeInteger:
		return fmt.Errorf("%w: control createdAt %d", ErrInvalidRequest, c.CreatedAt)
	}
	return nil
}

// Addressed reports whether c is a valid request to the very owner s
// names: its ownerId, pid and incarnation are s's.
func (c *ControlRequest) Addressed(s State) bool {
	return c.Validate() == nil && c.OwnerID == s.OwnerID && c.PID == s.PID && c.Incarnation == s.Incarnation
}

// ParseControl judges data as control.json: version 1, non-empty requestId,
// action "stop" or "reload", non-empty ownerId, pid a safe integer > 0,
// a valid incarnation, createdAt integral milliseconds; other keys are
// ignored, a key twice is malformed. The error is a *MalformedError.
func ParseControl(data []byte) (*ControlRequest, error) {
	obj, err := parseObject(data)
	if err != nil {
		return nil, &MalformedError{Path: ControlFile, Err: err}
	}
	f := fields{obj: obj, file: ControlFile}
	c := &ControlRequest{Version: RecordVersion}
	f.version()
	c.RequestID = f.nonEmpty("requestId")
	if raw, ok := f.required("action"); ok {
		if a, _ := jsString(raw); a == ActionStop || a == ActionReload {
			c.Action = a
		} else {
			f.fail("action", "must be %q or %q, got %s", ActionStop, ActionReload, shown(raw))
		}
	}
	c.OwnerID = f.nonEmpty("ownerId")
	c.PID = f.pid("pid")
	if raw, ok := f.required("incarnation"); ok {
		if s, _ := jsString(raw); incarnation.Valid(s) {
			c.Incarnation = s
		} else {
			f.fail("incarnation", "%s is not a valid incarnation", shown(raw))
		}
	}
	c.CreatedAt = f.time("createdAt")
	if f.err != nil {
		return nil, f.err
	}
	return c, nil
}
