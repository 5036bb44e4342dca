package slack

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/relay"
)

// Eyes is the reaction an accepted reply gets (Slack's name for 👀).
const Eyes = "eyes"

var _ inbound.Service = (*Poster)(nil)

// A message is the same whether Socket Mode delivered it or a history
// read found it; these are the fields the inbound side judges.
type message struct {
	channel, ts, threadTS, user, botID, subtype, text string
	files                                             []slackapi.File
}

// event turns a message in channel (the configured one) into an
// inbound.Event. Its place is its thread's root: a root message, or one
// in another channel, is in no session's thread.
func (m message) event(channel, self string) inbound.Event {
	ev := inbound.Event{ID: m.ts, User: m.user, Text: unescape(m.text), Time: tsTime(m.ts), Files: remoteFiles(m.files)}
	if m.channel == channel && m.threadTS != "" && m.threadTS != m.ts {
		ev.Place = m.threadTS
	}
	ev.Self = self != "" && m.user == self
	ev.Bot = m.botID != "" || ev.Self
	switch m.subtype {
	case "", "thread_broadcast", "file_share":
		// A person's message (a reply also sent to the channel, one with
		// files: file_share in an event, no subtype in history): the text
		// is what they wrote, the files are theirs.
	case "message_changed":
		ev.Kind = inbound.Edit
	case "bot_message":
		// An integration's post: counted as a bot's, which it is.
		ev.Bot = true
	default:
		ev.Kind = inbound.Other
	}
	return ev
}

// EventOf is a Socket Mode message event as the inbound side judges it.
// self is the bot's own user id.
func EventOf(e *slackevents.MessageEvent, channel, self string) inbound.Event {
	m := message{channel: e.Channel, ts: e.TimeStamp, threadTS: e.ThreadTimeStamp, user: e.User, botID: e.BotID, subtype: e.SubType, text: e.Text}
	if e.SubType == "message_changed" && e.Message != nil {
		// The outer event is Slack's; the message inside is the author's.
		m.ts, m.threadTS, m.user, m.botID = e.Message.Timestamp, e.Message.ThreadTimestamp, e.Message.User, e.Message.BotID
	} else if e.Message != nil {
		// slack-go reads a new message's own fields (its files among
		// them) into Message too.
		m.files = e.Message.Files
	}
	return m.event(channel, self)
}

// unescape undoes Slack's escaping of the three characters it escapes in
// message text; mentions (<@U123>) and links stay as Slack wrote them.
func unescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// tsTime reads a Slack ts ("seconds.micros"); the zero time if it is not
// one (the inbound side then refuses the message as unusable).
func tsTime(ts string) time.Time {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || s <= 0 || len(frac) > 6 {
		return time.Time{}
	}
	var us int64
	if frac != "" {
		if us, err = strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64); err != nil {
			return time.Time{}
		}
	}
	return time.Unix(s, us*1000)
}

func tsOf(t time.Time) string { return fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000) }

// SelfID is the bot's user id (auth.test, asked once).
func (p *Poster) SelfID(ctx context.Context) (string, error) {
	p.selfMu.Lock()
	defer p.selfMu.Unlock()
	if p.self != "" {
		return p.self, nil
	}
	var resp *slackapi.AuthTestResponse
	err := p.call(ctx, "auth.test", func() (err error) {
		resp, err = p.api.AuthTestContext(ctx)
		return err
	})
	if err != nil {
		return "", p.fail("auth.test", err)
	}
	if resp == nil || resp.UserID == "" {
		return "", errors.New("slack auth.test: no user id in the answer")
	}
	p.self = resp.UserID
	return p.self, nil
}

// History implements inbound.Service: conversations.replies of the thread
// whose root is place, after after (or since since), oldest first, paged,
// waiting out rate limits.
func (p *Poster) History(ctx context.Context, place, after string, since time.Time, fn func(inbound.Event) error) error {
	self, err := p.SelfID(ctx)
	if err != nil {
		return err
	}
	oldest := tsOf(since)
	if after != "" && tsLess(oldest, after) {
		oldest = after
	}
	cursor := ""
	for {
		var (
			msgs []slackapi.Message
			more bool
			next string
		)
		err := p.call(ctx, "conversations.replies", func() (err error) {
			msgs, more, next, err = p.api.GetConversationRepliesContext(ctx, &slackapi.GetConversationRepliesParameters{
				ChannelID: p.channel, Timestamp: place, Oldest: oldest, Cursor: cursor, Limit: p.opts.PageSize,
			})
			return err
		})
		if e := classify(err); e != nil && e.Kind == relay.RateLimited && ctx.Err() == nil {
			continue // call held the method back by the 429's wait
		}
		if err != nil {
			return p.fail("reading the replies of "+place, err)
		}
		for _, m := range msgs {
			if m.Timestamp == place || !tsLess(oldest, m.Timestamp) {
				continue // the root, repeated on each page; or not after oldest
			}
			mm := message{channel: p.channel, ts: m.Timestamp, threadTS: m.ThreadTimestamp, user: m.User, botID: m.BotID, subtype: m.SubType, text: m.Text, files: m.Files}
			if mm.threadTS == "" {
				mm.threadTS = place
			}
			if err := fn(mm.event(p.channel, self)); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
		if next == "" {
			return fmt.Errorf("slack reading the replies of %s: more replies but no cursor", place)
		}
		cursor = next
	}
}

// React implements inbound.Service: reactions.add; already_reacted is
// success.
func (p *Poster) React(ctx context.Context, place, id string) error {
	for {
		err := p.call(ctx, "reactions.add", func() error {
			return p.api.AddReactionContext(ctx, Eyes, slackapi.ItemRef{Channel: p.channel, Timestamp: id})
		})
		if err == nil {
			return nil
		}
		code, _ := slackCode(err)
		e := classify(err)
		switch {
		case code == "already_reacted":
			return nil
		case e.Kind == relay.RateLimited:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		case code != "" && !tokenCodes[code]:
			// The message is gone, or the bot may not react there.
			return &inbound.PermanentError{Err: p.fail("reacting to "+id, err)}
		}
		return p.fail("reacting to "+id, err)
	}
}

// tokenCodes are refusals of the token: the transport ends the daemon for
// those, so a reaction is not given up over one.
var tokenCodes = map[string]bool{"invalid_auth": true, "not_authed": true, "account_inactive": true, "token_revoked": true, "token_expired": true}
