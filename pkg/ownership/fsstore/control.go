package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/internal/jswriter"
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
func NewControlRequest(action string, decided ownership.State) ControlRequest {
	return ControlRequest{
		Version: ownership.RecordVersion, RequestID: uuid.NewString(), Action: action,
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

// validate refuses a request that ParseControl would not read back.
func (c *ControlRequest) validate() error {
	switch {
	case c.Version != ownership.RecordVersion:
		return fmt.Errorf("%w: control version %d", ownership.ErrInvalidRequest, c.Version)
	case c.RequestID == "" || !utf8.ValidString(c.RequestID):
		return fmt.Errorf("%w: control requestId must be non-empty UTF-8", ownership.ErrInvalidRequest)
	case c.Action != ActionStop && c.Action != ActionReload:
		return fmt.Errorf("%w: control action %q", ownership.ErrInvalidRequest, c.Action)
	case c.OwnerID == "" || !utf8.ValidString(c.OwnerID):
		return fmt.Errorf("%w: control ownerId must be non-empty UTF-8", ownership.ErrInvalidRequest)
	case c.PID <= 0 || c.PID > maxSafeInteger:
		return fmt.Errorf("%w: control pid %d", ownership.ErrInvalidRequest, c.PID)
	case !platform.ValidIncarnation(c.Incarnation):
		return fmt.Errorf("%w: control incarnation %q has no authority", ownership.ErrInvalidRequest, c.Incarnation)
	case c.CreatedAt < -maxSafeInteger || c.CreatedAt > maxSafeInteger:
		return fmt.Errorf("%w: control createdAt %d", ownership.ErrInvalidRequest, c.CreatedAt)
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
		return nil, &ownership.MalformedError{Path: ownership.ControlFile, Err: err}
	}
	f := fields{obj: obj, file: ownership.ControlFile}
	c := &ControlRequest{Version: ownership.RecordVersion}
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
func WriteControl(p ownership.Paths, c ControlRequest) error {
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
func ReadControl(p ownership.Paths) (*ControlRequest, error) {
	data, exists, err := readContractFile(p, p.Control)
	switch {
	case err != nil:
		return nil, &ownership.MalformedError{Path: p.Control, Err: err}
	case !exists:
		return nil, nil
	}
	c, err := ParseControl(data)
	if err != nil {
		err.(*ownership.MalformedError).Path = p.Control
		return nil, err
	}
	return c, nil
}

// ClearControl removes control.json only if it holds the request with
// requestID, and only the very file judged (platform.ExactUnlink), so a
// newer request written meanwhile survives. No file is nil; another
// request, or one that does not parse, is a *ControlChangedError and stays.
func ClearControl(p ownership.Paths, requestID string) error {
	if requestID == "" {
		return fmt.Errorf("%w: clear control: empty requestId", ownership.ErrInvalidRequest)
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
		return &ownership.ControlChangedError{Want: requestID, Got: "a malformed request"}
	}
	if c.RequestID != requestID {
		return &ownership.ControlChangedError{Want: requestID, Got: c.RequestID}
	}
	if err := platform.ExactUnlink(p.Control, lease); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if errors.Is(err, platform.ErrLeaseMismatch) {
			return &ownership.ControlChangedError{Want: requestID, Got: "a request written meanwhile"}
		}
		return fmt.Errorf("clear control request: %w", err)
	}
	return nil
}

// ControlAddressed reports whether c is a valid request to this very
// owner: its ownerId, pid and incarnation are ours.
// StopRequested reads control.json: whether a request addressed to this
// owner waits there (ownership.Claim).
func (o *Owner) StopRequested() (bool, error) {
	req, err := ReadControl(o.paths)
	if err != nil || req == nil {
		return false, err
	}
	return o.ControlAddressed(*req), nil
}

func (o *Owner) ControlAddressed(c ControlRequest) bool {
	if c.validate() != nil {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return c.OwnerID == o.state.OwnerID && c.PID == o.state.PID && c.Incarnation == o.state.Incarnation
}
