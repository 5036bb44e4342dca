package telegram

import (
	"context"
	"fmt"
	"strconv"

	tgbot "github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/relay"
)

// Lookup implements relay.Poster with the id probe (DESIGN 5,
// "Telegram"): the Bot API has no idempotency key and no history, but a
// supergroup's message ids are sequential, so a part whose answer was
// lost is one of the ids above after (the last part confirmed in its
// thread; the thread's own id when none was), or nowhere. Each id is
// asked editMessageText with the part's exact text, and Decide says what
// the answers prove. The probe never posts; when it cannot decide, the
// session is blocked (never a blind re-post) and the lookup is tried
// again later.
//
// An id the relay confirmed for a part (part.Confirmed), or that this
// process posted or edited with other text, is not asked: an edit of it
// would succeed and overwrite it. What is left to overwrite is another
// part whose answer was lost too (two sessions cut off at once); the
// probe that edits one (Decide's Edited) stops undecided.
func (p *Poster) Lookup(ctx context.Context, part relay.Part, after string) (string, bool, error) {
	start, err := probeStart(after, part.Thread)
	if err != nil {
		return "", false, err
	}
	c := contentOf(part)
	var answers []Answer
	for {
		v, found, next := Decide(start, answers)
		switch v {
		case Posted:
			p.remember(found, c.text)
			return strconv.FormatInt(found, 10), true, nil
		case NotPosted:
			return "", false, nil
		case Undecided:
			return "", false, undecided(part.Key, fmt.Sprintf("the ids above %d proved nothing (%d asked)", start, len(answers)))
		}
		a, err := p.probe(ctx, next, c, part.Confirmed)
		if err != nil {
			return "", false, err
		}
		answers = append(answers, a)
	}
}

// probe asks one id with the part's whole content, keyboard and mentions
// included, as posted. A 429 is returned as such (the relay waits it out
// and looks again); any other failure is an answer that proves nothing.
func (p *Poster) probe(ctx context.Context, id int64, c content, confirmed func(string) bool) (Answer, error) {
	p.mu.Lock()
	known, ok := p.posted[id]
	p.mu.Unlock()
	switch {
	case confirmed != nil && confirmed(strconv.FormatInt(id, 10)):
		return Skipped, nil
	case ok && known == c.text:
		return NotModified, nil
	case ok:
		return Skipped, nil // ours, with other text: not this part
	}
	var err error
	perr := p.posting(ctx, func() error {
		params := &tgbot.EditMessageTextParams{ChatID: p.chat, MessageID: int(id), Text: c.text, Entities: c.entities, LinkPreviewOptions: noPreview()}
		if c.keyboard != nil {
			params.ReplyMarkup = c.keyboard
		}
		_, err = p.api.EditMessageText(ctx, params)
		return err
	})
	if ctx.Err() != nil {
		return Unknown, ctx.Err()
	}
	if e := classify(perr); perr != nil && e.Kind == relay.RateLimited {
		return Unknown, p.fail("probing message "+strconv.FormatInt(id, 10), perr)
	}
	return answerOf(err), nil
}

// probeStart is the id the probe starts above: the last part confirmed
// in the part's thread, else the thread itself (its root or topic), else,
// for the first root of a relay that confirmed nothing yet, the start of
// the chat: in a group with a long history that probe reaches its bound
// and is undecided, so the session waits rather than guess.
func probeStart(after, thread string) (int64, error) {
	switch {
	case after != "":
		return messageID(after)
	case thread != "":
		return messageID(thread)
	}
	return 0, nil
}

func undecided(key, why string) *relay.Error {
	return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: "probe-undecided",
		Err: fmt.Errorf("telegram cannot tell whether %s was posted: %s; the session waits rather than post it twice", key, why)}
}
