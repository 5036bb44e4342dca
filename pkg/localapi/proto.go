package localapi

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/gc"
	"gjc.dev/reconciler/pkg/reconcile"
)

// The endpoints, versioned: a later incompatible change is /v2, served
// beside these.
const (
	PathStatus  = "/v1/status"
	PathStop    = "/v1/stop"
	PathStart   = "/v1/start"
	PathRestart = "/v1/restart"
	PathGC      = "/v1/gc"
	PathSend    = "/v1/send"
)

// MaxRequest caps a request's body (but a send's, MaxSendRequest), and
// MaxHeader its header: names and flags, far smaller. MaxResponse caps what a client reads back (a status
// of many daemons with their conditions).
const (
	MaxRequest  = 64 << 10
	MaxHeader   = 64 << 10
	MaxResponse = 16 << 20
)

// SocketPath is where the loop of agentDir serves.
func SocketPath(agentDir string) string {
	return filepath.Join(agentDir, "sdk", "reconciler", "api.sock")
}

// Backend answers the operator's requests: the loop over its socket
// (Client), the loop itself (LoopBackend), or the command acting alone
// (Direct).
type Backend interface {
	Status(ctx context.Context, req StatusRequest) (*reconcile.Status, error)
	Stop(ctx context.Context, req StopRequest) (*OperateResponse, error)
	Start(ctx context.Context, req StartRequest) (*OperateResponse, error)
	Restart(ctx context.Context, req RestartRequest) (*OperateResponse, error)
	GC(ctx context.Context, req GCRequest) (*gc.Report, error)
	Send(ctx context.Context, req SendRequest) (*SendResponse, error)
}

// StatusRequest asks for the status of some names, or of all (none named).
type StatusRequest struct {
	Names []string `json:"names,omitempty"`
}

// StopRequest is `reconciler stop`. Zero timeouts are the defaults.
type StopRequest struct {
	reconcile.Selection
	Force           bool            `json:"force,omitempty"`
	GracefulTimeout metav1.Duration `json:"gracefulTimeout,omitzero"`
	KillTimeout     metav1.Duration `json:"killTimeout,omitzero"`
	LockTimeout     metav1.Duration `json:"lockTimeout,omitzero"`
}

// StartRequest is `reconciler start`.
type StartRequest struct {
	reconcile.Selection
	LockTimeout metav1.Duration `json:"lockTimeout,omitzero"`
}

// RestartRequest is `reconciler restart`; it takes names, not All.
type RestartRequest struct {
	reconcile.Selection
	LockTimeout metav1.Duration `json:"lockTimeout,omitzero"`
}

// GCRequest is `reconciler gc`: a dry run unless Prune.
type GCRequest struct {
	Prune       bool            `json:"prune,omitempty"`
	LockTimeout metav1.Duration `json:"lockTimeout,omitzero"`
}

// OperateResponse is one result per name, in the order the names resolved.
type OperateResponse struct {
	Results []reconcile.OperateResult `json:"results"`
}

// Failed reports whether any name's operation failed (exit 1).
func (r *OperateResponse) Failed() bool {
	for _, res := range r.Results {
		if !res.OK {
			return true
		}
	}
	return false
}

// Error is an answer that is not a result: what went wrong, and the exit
// code the command line gives it (DESIGN section 7).
type Error struct {
	Message string `json:"error"`
	Code    int    `json:"exitCode"`
}

func (e *Error) Error() string { return e.Message }

// Exit codes, as the command line has them.
const (
	exitFailed = 1
	exitUsage  = 2
	exitLock   = 3
)

// ExitCode is the command line's exit code for err: 2 for the caller's
// mistake (an unknown name), 3 for the pass lock not had, 1 for anything
// else; an Error from a loop keeps the code the loop gave it.
func ExitCode(err error) int {
	var e *Error
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e.Code
	case reconcile.IsUsage(err):
		return exitUsage
	case reconcile.ErrLock(err):
		return exitLock
	}
	return exitFailed
}

// badRequest is a request the server cannot read: the caller's mistake.
func badRequest(format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...), Code: exitUsage}
}
