package ownership

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/google/uuid"

	"gjc.dev/reconciler/pkg/platform"
)

// Control actions.
const (
	ActionStop   = "stop"
	ActionReload = "reload"
)

// ControlRequest is control.json: a request to one exact owner, written by
// the controller before it signals. The daemon acts only on a request
// addressed to itself (Owner.ControlAddressed).
type ControlRequest struct {
	Version     int    `json:"version"`
	RequestID   string `json:"requestId"`
	Action      string `json:"action"`
	OwnerID     string `json:"ownerId"`
	PID         int    `json:"pid"`
	Incarnation string `json:"incarnation"`
	CreatedAt   int64  `json:"createdAt"` // unix ms
}

// NewControlRequest returns a request with a fresh id to the owner that
// decided names.
func NewControlRequest(action string, decided State) ControlRequest {
	return ControlRequest{
		Version: RecordVersion, RequestID: uuid.NewString(), Action: action,
		OwnerID: decided.OwnerID, PID: decided.PID, Incarnation: decided.Incarnation,
		CreatedAt: defaultEnv().now().UnixMilli(),
	}
}

// NewOwnerID returns an owner id as the reference makes them:
// "<pid of the spawning process>-<uuid>".
func NewOwnerID() string { return fmt.Sprintf("%d-%s", os.Getpid(), uuid.NewString()) }

// Marshal returns the request as the reference writes it: keys version,
// requestId, action, ownerId, pid, incarnation, createdAt, then "\n".
func (c *ControlRequest) Marshal() []byte {
	var w jsWriter
	w.b = make([]byte, 0, 200)
	w.open()
	w.key("version").int(int64(c.Version))
	w.key("requestId").str(c.RequestID)
	w.key("action").str(c.Action)
	w.key("ownerId").str(c.OwnerID)
	w.key("pid").int(int64(c.PID))
	w.key("incarnation").str(c.Incarnation)
	w.key("createdAt").int(c.CreatedAt)
	w.close()
	return append(w.b, '\n')
}

// validate refuses a request that ParseControl would not read back.
func (c *ControlRequest) validate() error {
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
	case !platform.ValidIncarnation(c.Incarnation):
		return fmt.Errorf("%w: control incarnation %q has no authority", ErrInvalidRequest, c.Incarnation)
	case c.CreatedAt < -maxSafeInteger || c.CreatedAt > maxSafeInteger:
		return fmt.Errorf("%w: control createdAt %d", ErrInvalidRequest, c.CreatedAt)
	}
	return nil
}

// ParseControl judges data as control.json: version 1, non-empty requestId,
// action "stop" or "reload", non-empty ownerId, pid a safe integer > 0,
// a valid incarnation, createdAt integral milliseconds; other keys are
// ignored, a key twice is malformed.
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
		if s, _ := jsString(raw); platform.ValidIncarnation(s) {
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

// WriteControl writes control.json atomically, replacing any request there.
// The daemon directory must exist and be private: a request is only ever
// for an owner that is there.
func WriteControl(p Paths, c ControlRequest) error {
	if err := c.validate(); err != nil {
		return err
	}
	exists, err := checkDir(p)
	switch {
	case err != nil:
		return fmt.Errorf("write control request: %w", err)
	case !exists:
		return fmt.Errorf("write control request: %w", &fs.PathError{Op: "open", Path: p.Dir, Err: fs.ErrNotExist})
	}
	if err := platform.WriteFileAtomic(p.Control, c.Marshal()); err != nil {
		return fmt.Errorf("write control request: %w", err)
	}
	return nil
}

// ReadControl reads control.json: (nil, nil) when there is none, a
// *MalformedError when it cannot be trusted (a symbolic link, oversize, a
// bad field, a directory that is not private).
func ReadControl(p Paths) (*ControlRequest, error) {
	data, exists, err := readContractFile(p, p.Control)
	switch {
	case err != nil:
		return nil, &MalformedError{Path: p.Control, Err: err}
	case !exists:
		return nil, nil
	}
	c, err := ParseControl(data)
	if err != nil {
		err.(*MalformedError).Path = p.Control
		return nil, err
	}
	return c, nil
}

// ClearControl removes control.json only if it holds the request with
// requestID, and only the very file judged (platform.ExactUnlink), so a
// newer request written meanwhile survives. No file is nil; another
// request, or one that does not parse, is a *ControlChangedError and stays.
func ClearControl(p Paths, requestID string) error {
	if requestID == "" {
		return fmt.Errorf("%w: clear control: empty requestId", ErrInvalidRequest)
	}
	exists, err := checkDir(p)
	switch {
	case err != nil:
		return fmt.Errorf("clear control request: %w", err)
	case !exists:
		return nil
	}
	lease, err := platform.CaptureLease(p.Control)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("clear control request: %w", err)
	}
	c, err := ParseControl(lease.Content)
	if err != nil {
		return &ControlChangedError{Want: requestID, Got: "a malformed request"}
	}
	if c.RequestID != requestID {
		return &ControlChangedError{Want: requestID, Got: c.RequestID}
	}
	if err := platform.ExactUnlink(p.Control, lease); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if errors.Is(err, platform.ErrLeaseMismatch) {
			return &ControlChangedError{Want: requestID, Got: "a request written meanwhile"}
		}
		return fmt.Errorf("clear control request: %w", err)
	}
	return nil
}

// ControlAddressed reports whether c is a valid request to this very
// owner: its ownerId, pid and incarnation are ours.
func (o *Owner) ControlAddressed(c ControlRequest) bool {
	if c.validate() != nil {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return c.OwnerID == o.state.OwnerID && c.PID == o.state.PID && c.Incarnation == o.state.Incarnation
}
