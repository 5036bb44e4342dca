package ownership

import (
	"errors"
	"path/filepath"
)

// Reasons, CamelCase for status conditions. A Classification carries one,
// and so does every refusal (see Reason).
const (
	// Classes.
	ReasonNoOwner              = "NoOwner"               // absent
	ReasonOwnerReleased        = "OwnerReleased"         // stopped: stoppedAt set
	ReasonOwnerExited          = "OwnerExited"           // stopped: PID dead
	ReasonPIDReused            = "PIDReused"             // stopped: live PID, proven other incarnation
	ReasonNotThisDaemon        = "PIDNotThisDaemon"      // stopped: live PID, proven not this name's daemon
	ReasonPreviousBoot         = "OwnerFromPreviousBoot" // stopped: startedAt before boot
	ReasonLegacyOwnerExited    = "LegacyOwnerExited"     // stopped: legacy record, PID dead
	ReasonOwnerExiting         = "OwnerExiting"          // stopped, but its process still runs
	ReasonMalformedOwnerRecord = "MalformedOwnerRecord"  // malformed
	ReasonForeignOwner         = "ForeignOwner"          // foreign
	ReasonIdentityDrift        = "IdentityDrift"         // drifted
	ReasonGenerationBehind     = "GenerationBehind"      // replaceable
	ReasonGenerationAhead      = "GenerationAhead"       // newer
	ReasonOwnerHealthy         = "OwnerHealthy"          // compatible, healthy
	ReasonOwnerStarting        = "OwnerStarting"         // compatible, not yet connected
	ReasonOwnerHung            = "OwnerHung"             // compatible, heartbeat stale
	ReasonTransportUnhealthy   = "TransportUnhealthy"    // compatible, reconnecting
	ReasonOwnerUnverifiable    = "OwnerUnverifiable"     // live PID, incarnation or command line unprovable

	// Refusals and failures of operations.
	ReasonUnsafeDirectory    = "UnsafeOwnerDirectory"
	ReasonMalformedOwnerLock = "MalformedOwnerLock"
	ReasonMalformedControl   = "MalformedControlRequest"
	ReasonOwnerHeld          = "OwnerHeld"
	ReasonReclaimBusy        = "ReclaimInProgress"
	ReasonNoIncarnation      = "NoIncarnationAuthority"
	ReasonOwnershipLost      = "OwnershipLost"
	ReasonOwnerChanged       = "OwnerChanged"
	ReasonControlChanged     = "ControlRequestChanged"
	ReasonInvalidRequest     = "InvalidRequest"
	ReasonOperationFailed    = "OwnershipOperationFailed" // an I/O error, not a refusal
)

// Reason returns the CamelCase reason for an error of this package (or of
// a store, which marks the machine's errors with the sentinels below),
// ReasonOperationFailed for any other error, and "" for nil.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	var r interface{ Reason() string }
	switch {
	case errors.As(err, &r):
		return r.Reason()
	case errors.Is(err, ErrNoIncarnation):
		return ReasonNoIncarnation
	case errors.Is(err, ErrBadPaths), errors.Is(err, ErrInvalidRequest):
		return ReasonInvalidRequest
	case errors.Is(err, ErrUnsafeDirectory):
		return ReasonUnsafeDirectory
	case errors.Is(err, ErrPIDReused):
		return ReasonPIDReused
	case errors.Is(err, ErrOwnerExited):
		return ReasonOwnerExited
	}
	return ReasonOperationFailed
}

func hasBase(path, base string) bool { return path != "" && filepath.Base(path) == base }

// The machine's answers, as a store marks them on the errors it returns
// (fsstore wraps the platform's errors with these), so a verdict on an
// error needs no platform.
var (
	ErrUnsafeDirectory = errors.New("directory is not private")
	ErrPIDReused       = errors.New("pid reused by another process")
	ErrOwnerExited     = errors.New("owner has exited")
)

// maxReason bounds a reason a record carries (transportReason).
const maxReason = 64

// ValidReason reports whether s can be a reason this package shows: an
// upper-case letter, then letters and digits, at most maxReason in all.
// A status condition's reason must be a word of that kind.
func ValidReason(s string) bool {
	if s == "" || len(s) > maxReason || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
