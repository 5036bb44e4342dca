package telegram

import (
	"context"
	"fmt"
	"strconv"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/relay"
)

// Lookup implements relay.Poster with the id probe (DESIGN 5,
// "Telegram"): the Bot API has no idempotency key and no history, but a
// supergroup's message ids are sequential, so a part whose answer was
// lost is one of the ids above the highest id known before its attempt
// (probeStart), or nowhere. The ids up to the chat's known top (chatTop,
// learned at any time) exist, so a gap of missing ids below it is
// probed through rather than read as the top (Decide). Each id is
// asked editMessageText with the part's exact text (a file part's
// document: editMessageCaption with its exact caption), and Decide says
// what the answers prove. The probe never posts; when it cannot decide, the
// session is blocked (never a blind re-post) and the lookup is tried
// again later.
//
// An id the relay confirmed for a part (part.Confirmed), or that this
// process posted or edited with other text, is not asked: an edit of it
// would succeed and overwrite it. What is left to overwrite is another
// part whose answer was lost too (two sessions cut off at once), which
// "not modified" alone cannot tell from this one once a probe of this
// part has written its text there: whereThis tells them apart by where
// the message lies.
func (p *Poster) Lookup(ctx context.Context, part relay.Part, after string) (string, bool, error) {
	start, err := probeStart(after, part.Thread)
	if err != nil {
		return "", false, err
	}
	p.probing.Lock()
	defer p.probing.Unlock()
	top := p.top.get()
	c := contentOf(part)
	var answers []Answer
	for {
		v, found, next := Decide(start, top, answers)
		switch v {
		case Posted:
			p.remember(found, c.postedAs(part.Thread))
			return strconv.FormatInt(found, 10), true, nil
		case NotPosted:
			return "", false, nil
		case Undecided:
			return "", false, undecided(part.Key, fmt.Sprintf("the ids above %d proved nothing (%d asked)", start, len(answers)))
		}
		a, err := p.probe(ctx, next, c, part)
		if err != nil {
			return "", false, err
		}
		answers = append(answers, a)
	}
}

// probe asks one id with the part's whole content, keyboard and mentions
// included, as posted. A 429 is returned as such (the relay waits it out
// and looks again); any other failure is an answer that proves nothing.
func (p *Poster) probe(ctx context.Context, id int64, c content, part relay.Part) (Answer, error) {
	p.mu.Lock()
	known, ok := p.posted[id]
	p.mu.Unlock()
	switch {
	case part.Confirmed != nil && part.Confirmed(strconv.FormatInt(id, 10)):
		return Skipped, nil
	case ok && known == c.postedAs(part.Thread):
		return NotModified, nil
	case ok:
		return Skipped, nil // ours, with other text: not this part
	}
	m, err := p.edit(ctx, id, c)
	if err != nil {
		return Unknown, err
	}
	a := answerOf(m.err)
	if a != NotModified && a != Edited || part.Thread == "" {
		return a, nil
	}
	return p.whereThis(ctx, id, c, part.Thread, a, m.msg)
}

// whereThis decides whose the bot's message id is, for a part posted in
// a thread (a topic, or its root's replies), by where it lies: the only
// message of the bot's in that thread that the relay has not confirmed
// is that part's (a session's parts are posted one after another), and
// a message elsewhere is another part's. So:
//   - Edited here: the message had other text (a mark, or another
//     part's probe's text): it is this part's, and now shows it again.
//   - Edited elsewhere: another part's, which the edit has just given
//     this part's text until its own lookup restores it; Foreign.
//   - Not modified: it carries this part's text, as its own message does
//     and as another part's does that a probe of this part edited before
//     (a kill between that edit and its owner's look). Only an edit
//     says where it lies, so the message is marked (markText), then
//     given this part's content back if it is in this part's thread;
//     elsewhere it keeps the mark for its owner to restore.
//
// A kill between these edits leaves a mark or this part's text, which
// the next look reads as above. Roots (no thread) are not told apart:
// they all lie in the chat itself.
func (p *Poster) whereThis(ctx context.Context, id int64, c content, thread string, a Answer, m *models.Message) (Answer, error) {
	forum, err := p.isForum(ctx)
	if err != nil {
		return Unknown, err
	}
	if a == Edited {
		if placeOf(m, forum) == thread {
			return NotModified, nil
		}
		return Foreign, nil
	}
	marked, err := p.edit(ctx, id, content{text: markText, file: c.file})
	if err != nil || answerOf(marked.err) != Edited {
		return Unknown, err
	}
	if placeOf(marked.msg, forum) != thread {
		return Foreign, nil
	}
	back, err := p.edit(ctx, id, c)
	if err != nil || answerOf(back.err) != Edited {
		return Unknown, err // the mark stays: the next look finds it here
	}
	return NotModified, nil
}

// markText is what a probe leaves on a message it had to edit to learn
// where it lies: no part's text, so no probe takes it for its own.
const markText = "(this message is being restored after a restart)"

// placeOf is the thread a message lies in, as the relay names threads:
// its topic, or the root it replies to; "" in the chat itself.
func placeOf(m *models.Message, forum bool) string {
	switch {
	case m == nil:
		return ""
	case forum && m.IsTopicMessage && m.MessageThreadID != 0:
		return strconv.Itoa(m.MessageThreadID)
	case !forum && m.ReplyToMessage != nil:
		return strconv.Itoa(m.ReplyToMessage.ID)
	}
	return ""
}

// edited is one probing edit's outcome: the message as edited, or the
// service's refusal.
type edited struct {
	msg *models.Message
	err error
}

// edit makes one probing edit of id with c: editMessageText, or for a
// document editMessageCaption. Its error is a 429 or the end of ctx;
// the service's answer is in the outcome.
func (p *Poster) edit(ctx context.Context, id int64, c content) (edited, error) {
	var out edited
	perr := p.posting(ctx, func() error {
		if c.file {
			out.msg, out.err = p.api.EditMessageCaption(ctx, &tgbot.EditMessageCaptionParams{ChatID: p.chat, MessageID: int(id), Caption: c.text})
			return out.err
		}
		params := &tgbot.EditMessageTextParams{ChatID: p.chat, MessageID: int(id), Text: c.text, Entities: c.entities, LinkPreviewOptions: noPreview()}
		if c.keyboard != nil {
			params.ReplyMarkup = c.keyboard
		}
		out.msg, out.err = p.api.EditMessageText(ctx, params)
		return out.err
	})
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if e := classify(perr); perr != nil && e.Kind == relay.RateLimited {
		return out, p.fail("probing message "+strconv.FormatInt(id, 10), perr)
	}
	if out.err == nil && perr != nil {
		out.err = perr // the gate's own refusal: nothing was asked
	}
	return out, nil
}

// probeStart is the id the probe starts above: the higher of after and
// the thread itself (its root or topic). after is what the attempt
// journaled (Floor): the last part confirmed in the part's thread, or
// the chat's top known before the attempt was made when that is higher
// (never one learned later: it could lie above the lost part). For the
// first root of a fresh bot that was sent nothing and posted nothing,
// both are empty: the probe starts at the chat's first id, and in a
// group with a long history it reaches its bound and is undecided, so
// the session waits rather than guess.
func probeStart(after, thread string) (int64, error) {
	start := int64(0)
	for _, s := range []string{after, thread} {
		if s == "" {
			continue
		}
		id, err := messageID(s)
		if err != nil {
			return 0, err
		}
		start = max(start, id)
	}
	return start, nil
}

func undecided(key, why string) *relay.Error {
	return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: "probe-undecided",
		Err: fmt.Errorf("telegram cannot tell whether %s was posted: %s; the session waits rather than post it twice", key, why)}
}
