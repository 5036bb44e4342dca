package fsstore

import (
	"errors"
	"fmt"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// marked returns err with the model's sentinel for the platform's answer it
// carries, if any, so ownership.Reason can name it without knowing the
// platform. Every error the Store hands the reconciler passes through it.
func marked(err error) error {
	var mark error
	switch {
	case err == nil, errors.Is(err, ownership.ErrUnsafeDirectory), errors.Is(err, ownership.ErrPIDReused), errors.Is(err, ownership.ErrOwnerExited):
		return err
	case errors.Is(err, platform.ErrNotPrivate):
		mark = ownership.ErrUnsafeDirectory
	case errors.Is(err, platform.ErrIncarnationMismatch):
		mark = ownership.ErrPIDReused
	case errors.Is(err, platform.ErrProcessGone):
		mark = ownership.ErrOwnerExited
	default:
		return err
	}
	return fmt.Errorf("%w (%w)", err, mark)
}
