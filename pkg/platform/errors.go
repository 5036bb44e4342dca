package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"gjc.dev/reconciler/pkg/atomicfile"
)

var (
	// ErrProcessGone reports that the process a caller meant has exited,
	// including one that is a zombie waiting to be reaped.
	ErrProcessGone = errors.New("process has exited")

	// ErrInvalidPID reports a PID outside 1..the kernel's maximum. Such a
	// PID is never passed to kill(2): 0 and negative values address groups.
	ErrInvalidPID = errors.New("invalid pid")

	// ErrInvalidIncarnation reports a string that is not an incarnation in
	// one of the formats this package produces; it has no authority.
	ErrInvalidIncarnation = errors.New("invalid incarnation")

	// ErrIncarnationMismatch is matched by every *IncarnationMismatchError.
	ErrIncarnationMismatch = errors.New("incarnation mismatch")

	// ErrLeaseMismatch is matched by every *LeaseMismatchError: the file
	// is not, or could not be proved to be, the version a Lease describes.
	ErrLeaseMismatch = errors.New("file is not the leased file")

	// ErrQuarantined is matched by every *QuarantinedError.
	ErrQuarantined = errors.New("file left in quarantine")

	// ErrUnsafeFile reports a path that may not be trusted as a fenced file:
	// a symbolic link, not a regular file, or a file with more than one link.
	// It is atomicfile's, so one errors.Is covers both packages' refusals.
	ErrUnsafeFile = atomicfile.ErrUnsafeFile

	// ErrNotPrivate reports a directory that is a symbolic link, not a
	// directory, owned by another user, or writable by group or others
	// (atomicfile's, as above).
	ErrNotPrivate = atomicfile.ErrNotPrivate

	// ErrTooLarge reports a file larger than the caller's cap (atomicfile's,
	// as above).
	ErrTooLarge = atomicfile.ErrTooLarge

	// ErrFileChanged reports a file that changed, or whose name was pointed
	// at another file, while it was being read.
	ErrFileChanged = errors.New("file changed while being read")

	// ErrExist is returned (wrapped) by CreateExclusive when the name is
	// taken. It is fs.ErrExist, so either spelling works with errors.Is.
	ErrExist = fs.ErrExist
)

// IncarnationMismatchError reports that PID now names a process other than
// the one with incarnation Want: the PID was reused.
type IncarnationMismatchError struct {
	PID  int
	Want string // the incarnation the caller proved earlier
	Got  string // the incarnation the PID has now
}

func (e *IncarnationMismatchError) Error() string {
	return fmt.Sprintf("pid %d: incarnation is %s, expected %s (pid reused)", e.PID, e.Got, e.Want)
}

// Is makes errors.Is(err, ErrIncarnationMismatch) hold.
func (e *IncarnationMismatchError) Is(target error) bool { return target == ErrIncarnationMismatch }

// LeaseMismatchError reports that the file at Path is not, or could not be
// proved to be, the version of it that Want describes; ExactUnlink leaves
// such a file alone.
type LeaseMismatchError struct {
	Path string
	Want Lease
	// Got is what was found; it is nil when the file could not be captured
	// (a symbolic link, gone, changed while read, ...), and Err says why.
	Got *Lease
	Err error
}

func (e *LeaseMismatchError) Error() string {
	if e.Got == nil {
		return fmt.Sprintf("%s is not proved to be the leased file: %v", e.Path, e.Err)
	}
	diffs := e.Want.diff(*e.Got)
	parts := make([]string, len(diffs))
	for i, d := range diffs {
		parts[i] = d.String()
	}
	return fmt.Sprintf("%s is not the leased file: %s", e.Path, strings.Join(parts, ", "))
}

// Fields names the lease fields that differ ("dev", "ino", "size",
// "mtime", "nlink", "content"); it is empty when Got is nil.
func (e *LeaseMismatchError) Fields() []string {
	if e.Got == nil {
		return nil
	}
	var names []string
	for _, d := range e.Want.diff(*e.Got) {
		names = append(names, d.field)
	}
	return names
}

// Is makes errors.Is(err, ErrLeaseMismatch) hold.
func (e *LeaseMismatchError) Is(target error) bool { return target == ErrLeaseMismatch }

func (e *LeaseMismatchError) Unwrap() error { return e.Err }

// QuarantinedError reports that ExactUnlink moved the file at Path to
// Quarantine and had to leave it there: usually because it was not the
// leased file and Path was taken by yet another file before it could be put
// back. The quarantined file may be a live successor's; it is never deleted.
type QuarantinedError struct {
	Path       string
	Quarantine string
	Err        error // why the file was not deleted, e.g. a *LeaseMismatchError
	RestoreErr error // why it was not put back, if it was meant to be
}

func (e *QuarantinedError) Error() string {
	msg := fmt.Sprintf("%s moved aside to %s and left there: %v", e.Path, e.Quarantine, e.Err)
	if e.RestoreErr != nil {
		msg += fmt.Sprintf("; not put back: %v", e.RestoreErr)
	}
	return msg
}

// Is makes errors.Is(err, ErrQuarantined) hold.
func (e *QuarantinedError) Is(target error) bool { return target == ErrQuarantined }

func (e *QuarantinedError) Unwrap() error { return e.Err }
