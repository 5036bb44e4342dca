package slack

import (
	"context"
	"errors"
	"fmt"
	"time"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/relay"
)

// maxPages bounds one lookup; past it the lookup cannot be sure and says so.
const maxPages = 1000

// Lookup implements relay.Poster: the part's key in the metadata of the
// messages after `after` (conversations.history for a root,
// conversations.replies for a part in a thread), read with
// include_all_metadata since Slack returns metadata only then. Text is
// never compared: metadata is the part's identity. Each page is one call
// (history may be limited to 1 a minute), so the relay should look up only
// parts whose outcome is uncertain. A file part is looked up by its file
// (lookupFile).
func (p *Poster) Lookup(ctx context.Context, part relay.Part, after string) (string, bool, error) {
	if part.Upload != nil {
		return p.lookupFile(ctx, part)
	}
	oldest := lookupOldest(after, part.FirstAttempt, p.opts.ClockSkew)
	cursor := ""
	for range maxPages {
		msgs, next, more, err := p.page(ctx, part.Thread, oldest, cursor)
		if err != nil {
			return "", false, p.inThread(ctx, part.Thread, p.fail("looking up "+part.Key, err))
		}
		for _, m := range msgs {
			if part.Thread != "" && m.Timestamp == part.Thread {
				continue // replies repeat the parent on each page
			}
			if carriesKey(m, part.Key) {
				return m.Timestamp, true, nil
			}
		}
		if !more {
			return "", false, nil
		}
		if next == "" {
			return "", false, &relay.Error{Kind: relay.Uncertain,
				Err: fmt.Errorf("slack looking up %s: more messages but no cursor", part.Key)}
		}
		cursor = next
	}
	return "", false, &relay.Error{Kind: relay.Uncertain,
		Err: fmt.Errorf("slack looking up %s: not found in %d pages", part.Key, maxPages)}
}

// page reads one page of the channel's roots (thread "") or of a thread.
func (p *Poster) page(ctx context.Context, thread, oldest, cursor string) ([]slackapi.Message, string, bool, error) {
	if thread == "" {
		var h *slackapi.GetConversationHistoryResponse
		err := p.call(ctx, "conversations.history", func() (err error) {
			h, err = p.api.GetConversationHistoryContext(ctx, &slackapi.GetConversationHistoryParameters{
				ChannelID: p.channel, Oldest: oldest, Cursor: cursor, Limit: p.opts.PageSize, IncludeAllMetadata: true,
			})
			return err
		})
		if err != nil {
			return nil, "", false, err
		}
		if h == nil {
			return nil, "", false, errors.New("no answer")
		}
		return h.Messages, h.ResponseMetaData.NextCursor, h.HasMore, nil
	}
	var (
		msgs []slackapi.Message
		more bool
		next string
	)
	err := p.call(ctx, "conversations.replies", func() (err error) {
		msgs, more, next, err = p.api.GetConversationRepliesContext(ctx, &slackapi.GetConversationRepliesParameters{
			ChannelID: p.channel, Timestamp: thread, Oldest: oldest, Cursor: cursor, Limit: p.opts.PageSize, IncludeAllMetadata: true,
		})
		return err
	})
	return msgs, next, more, err
}

// carriesKey: the message has the relay's metadata naming key.
func carriesKey(m slackapi.Message, key string) bool {
	if m.Metadata.EventType != MetadataEventType {
		return false
	}
	k, ok := m.Metadata.EventPayload["key"].(string)
	return ok && k == key
}

// lookupOldest is the exclusive lower bound of a lookup: after (the last
// part known done), raised to the part's first attempt minus the clock
// skew when that is later, since Slack stamps a message when it receives
// it and so no attempt can land before it was made. "" is no bound.
func lookupOldest(after string, first time.Time, skew time.Duration) string {
	if first.IsZero() {
		return after
	}
	bound := first.Add(-skew)
	if bound.Unix() <= 0 {
		return after
	}
	floor := fmt.Sprintf("%d.%06d", bound.Unix(), bound.Nanosecond()/1000)
	if after == "" || tsLess(after, floor) {
		return floor
	}
	return after
}

// tsLess orders two Slack ts ("seconds.micros") numerically.
func tsLess(a, b string) bool {
	as, af := splitTS(a)
	bs, bf := splitTS(b)
	if len(as) != len(bs) {
		return len(as) < len(bs)
	}
	if as != bs {
		return as < bs
	}
	return af < bf
}

func splitTS(ts string) (sec, frac string) {
	for i := 0; i < len(ts); i++ {
		if ts[i] == '.' {
			return trimZeros(ts[:i]), ts[i+1:]
		}
	}
	return trimZeros(ts), ""
}

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}
