package slack

import (
	"context"
	"errors"
	"fmt"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/relay"
)

// inThread reclassifies the refusal of a request made in a session's
// thread (thread != "", the root's ts) that says the root is not there:
// thread_not_found (a reply, a lookup in its replies) or
// message_not_found (an edit, once the thread was shown gone). Slack
// keeps a deleted root that has replies as a "This message was deleted"
// placeholder and its thread goes on, so the root is gone only when it
// was deleted with all its replies, or had none. The channel is looked up
// (conversations.info, as at start) to tell that from a channel out of
// reach: reachable, the thread is gone (relay.Gone: the relay makes it
// again); not, the relay is blocked until it is back, with the backlog
// kept. Other errors stay as classify made them.
func (p *Poster) inThread(ctx context.Context, thread string, e *relay.Error) *relay.Error {
	if thread == "" || e == nil || e.Code != "thread_not_found" {
		return e
	}
	if blocked := p.channelReachable(ctx); blocked != nil {
		return blocked
	}
	return &relay.Error{Kind: relay.Gone, Code: e.Code,
		Err: fmt.Errorf("the session's root %s was deleted (channel %s is reachable): %w", thread, p.channel, e.Err)}
}

// channelReachable checks the channel: nil when the bot can post there; a
// rate limit as it came (nothing was accepted); anything else blocks the
// relay (RelayBlocked), since the channel cannot be shown reachable.
func (p *Poster) channelReachable(ctx context.Context) *relay.Error {
	err := p.CheckChannel(ctx)
	if err == nil {
		return nil
	}
	var re *relay.Error
	if !errors.As(err, &re) {
		re = &relay.Error{Err: err}
	}
	if re.Kind == relay.RateLimited {
		return re
	}
	return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: re.Code,
		Err: fmt.Errorf("a session's thread is not found and its channel cannot be reached: %w", err)}
}

// editGone tells, for an edit refused message_not_found, whether the
// part alone was deleted (the refusal stands) or its whole thread is
// gone: the thread's root is read (conversations.replies, one message),
// and thread_not_found there goes through inThread.
func (p *Poster) editGone(ctx context.Context, thread string, e *relay.Error) *relay.Error {
	if thread == "" || e == nil || e.Code != "message_not_found" {
		return e
	}
	err := p.call(ctx, "conversations.replies", func() error {
		_, _, _, err := p.api.GetConversationRepliesContext(ctx, &slackapi.GetConversationRepliesParameters{
			ChannelID: p.channel, Timestamp: thread, Limit: 1,
		})
		return err
	})
	if err == nil {
		return e
	}
	if te := p.inThread(ctx, thread, p.fail("reading thread "+thread, err)); te.Kind == relay.Gone || te.Kind == relay.Blocked || te.Kind == relay.RateLimited {
		return te
	}
	return e
}
