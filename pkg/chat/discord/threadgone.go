package discord

import (
	"errors"
	"fmt"
	"strconv"

	"gjc.dev/reconciler/pkg/relay"
)

// codeUnknownChannel, for a request in a session's thread, says the
// thread is gone.
const codeUnknownChannel = 10003

// threadGone reclassifies the refusal of a request made in a session's
// thread (thread != ""): Unknown Channel (the thread was deleted) or an
// archived thread the bot may not reopen (50083, locked) is that one
// session's thread gone or closed, not the daemon's configuration, so it
// is Refused and the message goes to failed/ rather than holding the
// session Blocked for ever. The same codes on the parent channel (thread
// "") stay as classify made them: Blocked until someone fixes the channel.
func threadGone(thread string, err error) error {
	var re *relay.Error
	if thread == "" || !errors.As(err, &re) {
		return err
	}
	switch re.Code {
	case strconv.Itoa(codeUnknownChannel):
		return &relay.Error{Kind: relay.Refused, Code: re.Code,
			Err: fmt.Errorf("the session's thread %s is gone (deleted, or out of the bot's reach): %w", thread, re.Err)}
	case strconv.Itoa(codeArchivedThread):
		return &relay.Error{Kind: relay.Refused, Code: re.Code,
			Err: fmt.Errorf("the session's thread %s is archived and locked: %w", thread, re.Err)}
	}
	return err
}
