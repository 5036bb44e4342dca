package reconcile

import (
	"errors"
	"fmt"

	"gjc.dev/reconciler/pkg/ownership"
)

// ReasonCannotExamine: this reconciler cannot see the process that holds
// the name (it runs in another PID namespace than the daemon, as under
// `unshare -p` or in a container): it judges nothing about it and starts
// nothing beside it.
const ReasonCannotExamine = "CannotExamine"

// unseenOccupant is the message for a spawn obstacle: a name occupied by a process this
// reconciler cannot see, or "" when err is no such obstacle. The kernel
// says the name is occupied; the records name PIDs this process cannot look
// up, so whatever it would conclude from them (dead, refused) is false.
func unseenOccupant(name string, err error) string {
	var occupied *ownership.HeldError
	if !errors.As(err, &occupied) || !occupied.Unseen || occupied.OtherUser {
		return ""
	}
	return fmt.Sprintf("cannot examine %s's daemon: a process outside this reconciler's PID namespace holds its name lock, and this reconciler cannot see it; nothing is started beside it, and it is judged only by a reconciler that can see it", name)
}
