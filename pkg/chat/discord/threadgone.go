package discord

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"gjc.dev/reconciler/pkg/relay"
)

// codeUnknownChannel is Discord's 404 for a channel or thread it does not
// know, or no longer shows the bot.
const codeUnknownChannel = 10003

// inThread reclassifies the refusal of a request made in a session's
// thread (thread != ""). Unknown Channel there means either the thread
// was deleted or the whole parent channel is out of reach (deleted, or
// the bot lost access: Discord then answers the same for its threads).
// The parent is looked up to tell which: reachable, the thread alone is
// gone (relay.Gone: the relay makes it again); not, the relay is blocked
// until the channel is back, with the backlog kept. A thread archived and
// locked by a moderator (50083) is that one session closed to the bot,
// Refused. The same codes on the parent channel itself (thread "") stay
// as classify made them: Blocked until someone fixes the channel.
func (p *Poster) inThread(ctx context.Context, thread string, err error) error {
	var re *relay.Error
	if thread == "" || !errors.As(err, &re) {
		return err
	}
	switch re.Code {
	case strconv.Itoa(codeUnknownChannel):
		if cerr := p.parentReachable(ctx); cerr != nil {
			return cerr
		}
		return &relay.Error{Kind: relay.Gone, Code: re.Code,
			Err: fmt.Errorf("the session's thread %s was deleted (channel %s is reachable): %w", thread, p.cfg.ParentChannelID, re.Err)}
	case strconv.Itoa(codeArchivedThread):
		return &relay.Error{Kind: relay.Refused, Code: re.Code,
			Err: fmt.Errorf("the session's thread %s is archived and locked: %w", thread, re.Err)}
	}
	return err
}

// parentReachable looks the parent channel up (GET channel, as at start):
// nil when the bot can use it; a rate limit as it came (nothing was
// accepted, the relay waits it out); anything else blocks the relay
// (RelayBlocked), since the channel cannot be shown to be reachable.
func (p *Poster) parentReachable(ctx context.Context) error {
	err := p.CheckChannel(ctx)
	if err == nil || relay.KindOf(err) == relay.RateLimited {
		return err
	}
	var re *relay.Error
	code := ""
	if errors.As(err, &re) {
		code = re.Code
	}
	return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: code,
		Err: fmt.Errorf("a session's thread is unknown and its channel cannot be reached: %w", err)}
}
