package telegram

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tgbot "github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/relay"
)

// The service's answers to editForumTopic that the topic probe reads
// (MTProto's errors, passed on as "Bad Request: <NAME>"); an id that is
// no topic may also be "message thread not found" (descThreadGone).
const (
	descTopicNotModified = "TOPIC_NOT_MODIFIED"
	descTopicInvalid     = "TOPIC_ID_INVALID"
)

var _ relay.ThreadLookup = (*Poster)(nil)

// LookupThread implements relay.ThreadLookup: a createForumTopic whose
// answer was lost is found by the id probe (DESIGN 5, "Telegram"), as a
// post is, before any new topic is made: a repeat would leave an empty
// second topic. The topic, if made, lies above its root (part.Thread),
// and each id there is asked editForumTopic with the thread's exact
// name: "TOPIC_NOT_MODIFIED" proves a topic of that name at that id.
// Decide says what the answers prove; the probe never creates, and when
// it cannot decide the session waits.
//
// Without topics a session's thread is its root's replies: nothing was
// made, the root is the thread.
//
// As for a post (probeStart), the probe starts above the chat's top
// known before the attempt, and reads no gap below the top known now as
// the top: a topic probe reads a plain message as no topic, so a busy
// chat's ids above the root are a gap too.
func (p *Poster) LookupThread(ctx context.Context, part relay.Part) (string, bool, error) {
	if _, err := messageID(part.Thread); err != nil {
		return "", false, err
	}
	forum, err := p.isForum(ctx)
	if err != nil || !forum {
		return part.Thread, err == nil, err
	}
	start, err := probeStart(part.After, part.Thread)
	if err != nil {
		return "", false, err
	}
	p.probing.Lock()
	defer p.probing.Unlock()
	top := p.top.get()
	name := topicName(part.Text)
	var answers []Answer
	for {
		v, found, next := Decide(start, top, answers)
		switch v {
		case Posted:
			p.rememberTopic(found)
			return strconv.FormatInt(found, 10), true, nil
		case NotPosted:
			return "", false, nil
		case Undecided:
			return "", false, undecided(part.Key, fmt.Sprintf("no topic named %q was proven above %d (%d ids asked)", name, start, len(answers)))
		}
		a, err := p.probeTopic(ctx, next, name, part.Confirmed)
		if err != nil {
			return "", false, err
		}
		answers = append(answers, a)
	}
}

// probeTopic asks one id whether it is a topic named name, as Decide
// reads it: NotModified, a topic of that name; NotFound, no topic (no
// message at all, or one that starts no topic: the answer is the same,
// so ids of messages the relay confirmed, which are skipped, are what
// tells a busy chat from its top); Edited, a topic of another name,
// which the probe renamed (it is remembered, and never taken); Skipped,
// an id the relay confirmed for any part or place (another session's
// topic of the same name among them) or that this process posted, made
// or renamed: never asked.
func (p *Poster) probeTopic(ctx context.Context, id int64, name string, confirmed func(string) bool) (Answer, error) {
	p.mu.Lock()
	_, posted := p.posted[id]
	known := p.topics[id]
	p.mu.Unlock()
	if posted || known || confirmed != nil && confirmed(strconv.FormatInt(id, 10)) {
		return Skipped, nil
	}
	var err error
	perr := p.posting(ctx, func() error {
		_, err = p.api.EditForumTopic(ctx, &tgbot.EditForumTopicParams{ChatID: p.chat, MessageThreadID: int(id), Name: name})
		return err
	})
	if ctx.Err() != nil {
		return Unknown, ctx.Err()
	}
	if perr != nil && classify(perr).Kind == relay.RateLimited {
		return Unknown, p.fail("probing topic "+strconv.FormatInt(id, 10), perr)
	}
	a := topicAnswerOf(err)
	if a == Edited {
		p.rememberTopic(id)
	}
	return a, nil
}

// topicAnswerOf reads editForumTopic's answer as the probe's Answer.
func topicAnswerOf(err error) Answer {
	switch {
	case err == nil:
		return Edited
	case !errors.Is(err, tgbot.ErrorBadRequest):
		return Unknown
	case strings.Contains(err.Error(), descTopicNotModified):
		return NotModified
	case strings.Contains(err.Error(), descTopicInvalid), strings.Contains(err.Error(), descThreadGone):
		return NotFound
	}
	return Unknown
}

func (p *Poster) rememberTopic(id int64) {
	p.mu.Lock()
	p.topics[id] = true
	p.mu.Unlock()
	p.top.saw(id)
}
