package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"io/fs"
	"os"

	"github.com/google/uuid"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/platform"
)

// NewOwnerID returns an owner id as the reference makes them:
// "<pid of the spawning process>-<uuid>".
func NewOwnerID() string { return fmt.Sprintf("%d-%s", os.Getpid(), uuid.NewString()) }

// WriteControl writes control.json atomically, replacing any request there.
// The daemon directory must exist and be private: a request is only ever
// for an owner that is there.
func WriteControl(p ownership.Paths, c ownership.ControlRequest) error {
	if err := c.Validate(); err != nil {
		return err
	}
	exists, err := checkDir(p)
	switch {
	case err != nil:
		return fmt.Errorf("write control request: %w", err)
	case !exists:
		return fmt.Errorf("write control request: %w", &fs.PathError{Op: "open", Path: p.Dir, Err: fs.ErrNotExist})
	}
	if err := atomicfile.Write(p.Control, c.Marshal()); err != nil {
		return fmt.Errorf("write control request: %w", err)
	}
	return nil
}

// ReadControl reads control.json: (nil, nil) when there is none, a
// *MalformedError when it cannot be trusted (a symbolic link, oversize, a
// bad field, a directory that is not private).
func ReadControl(p ownership.Paths) (*ownership.ControlRequest, error) {
	data, exists, err := readContractFile(p, p.Control)
	switch {
	case err != nil:
		return nil, &ownership.MalformedError{Path: p.Control, Err: err}
	case !exists:
		return nil, nil
	}
	c, err := ownership.ParseControl(data)
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
	c, err := ownership.ParseControl(lease.Content)
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

// StopRequested reads control.json: whether a request addressed to this
// owner waits there (ownership.Claim).
func (o *Owner) StopRequested() (bool, error) {
	req, err := ReadControl(o.paths)
	if err != nil || req == nil {
		return false, err
	}
	return o.ControlAddressed(*req), nil
}

// ControlAddressed reports whether c is a valid request to this very
// owner: its ownerId, pid and incarnation are ours.
func (o *Owner) ControlAddressed(c ownership.ControlRequest) bool {
	return c.Addressed(o.State())
}
