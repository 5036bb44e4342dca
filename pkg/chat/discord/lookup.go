package discord

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/relay"
)

// historyPage is the most messages Discord returns per history request.
const historyPage = 100

// clockSkew is how far this machine's clock may be ahead of Discord's: a
// lookup with nothing done before the part never reads messages made more
// than this before its first attempt (a busy parent channel's whole
// history would not fit in the lookup's pages).
const clockSkew = time.Hour

// discordEpoch is the zero of Discord snowflakes (2015-01-01), in ms.
const discordEpoch = 1420070400000

// floorSnowflake is the smallest id of a message made skew before first:
// "0", the channel's beginning, when first is unknown or that early.
func floorSnowflake(first time.Time, skew time.Duration) string {
	ms := first.Add(-skew).UnixMilli() - discordEpoch
	if first.IsZero() || ms <= 0 {
		return "0"
	}
	return strconv.FormatUint(uint64(ms)<<22, 10)
}

// nonce derives a part's nonce from the parent channel, the thread it is
// posted in and its key: the same part in the same thread always gets the
// same nonce, which Discord caps at 25 characters. The thread is in it
// because Discord holds a nonce per author, not per channel: a part
// posted again in a thread made anew after a moderator deleted the first
// must not be answered with its copy in the deleted one.
func (p *Poster) nonce(thread, key string) string {
	sum := sha256.Sum256([]byte(p.cfg.ParentChannelID + "\x00" + thread + "\x00" + key))
	return strings.ToLower(base32.StdEncoding.EncodeToString(sum[:15])) // 24 characters
}

// inNonceWindow says whether a part first attempted at first may still be
// resolved by posting it again with its nonce. A first attempt in the future
// (the clock went back) does not count: the real gap is unknown.
func inNonceWindow(first, now time.Time, window time.Duration) bool {
	if first.IsZero() {
		return false
	}
	gap := now.Sub(first)
	return gap >= 0 && gap < window
}

// Lookup implements relay.Poster.
func (p *Poster) Lookup(ctx context.Context, part relay.Part, after string) (string, bool, error) {
	if inNonceWindow(part.FirstAttempt, time.Now(), p.opts.NonceWindow) {
		// Discord returns the message made with this nonce, if any, and
		// makes none: posting again is the lookup.
		id, err := p.Post(ctx, part)
		if err != nil {
			return "", false, err
		}
		return id, true, nil
	}
	id, found, err := p.findByContent(ctx, part, after)
	if err != nil {
		return "", false, p.inThread(ctx, part.Thread, err)
	}
	return id, found, nil
}

// historyMessage is what a lookup reads of a fetched message. Fetched
// messages carry no nonce, so the content (and the buttons) is what
// identifies a part.
type historyMessage struct {
	ID         string      `json:"id"`
	Content    string      `json:"content"`
	Components []component `json:"components"`
	Author     struct {
		ID string `json:"id"`
	} `json:"author"`
	Attachments []historyAttachment `json:"attachments"`
}

// findByContent pages forward from after through the bot's messages where
// the part would be and returns the first that is the part as Post
// renders it: its content, and its buttons.
func (p *Poster) findByContent(ctx context.Context, part relay.Part, after string) (string, bool, error) {
	me, err := p.selfID(ctx)
	if err != nil {
		return "", false, err
	}
	ch := p.channelOf(part.Thread)
	cursor := after
	if cursor == "" {
		cursor = floorSnowflake(part.FirstAttempt, clockSkew)
	}
	for range p.opts.LookupPages {
		url := discordgo.EndpointChannelMessages(ch) + "?after=" + cursor + "&limit=" + strconv.Itoa(historyPage)
		body, err := p.do(ctx, http.MethodGet, url, bucketOf(http.MethodGet, ch, "/messages"), nil)
		if err != nil {
			return "", false, err
		}
		var page []historyMessage
		if err := json.Unmarshal(body, &page); err != nil {
			return "", false, fmt.Errorf("reading the history of %s: %w", ch, err)
		}
		if id, ok := match(page, me, part); ok {
			return id, true, nil
		}
		if len(page) < historyPage {
			return "", false, nil
		}
		cursor = page[len(page)-1].ID // match sorted the page oldest first
	}
	return "", false, fmt.Errorf("looking up part %s: more than %d messages in %s after %s; cannot be sure", part.Key, p.opts.LookupPages*historyPage, ch, after)
}

// match sorts a history page oldest first (Discord answers newest first) and
// returns the first message by the bot that is part as renderPart makes
// it: its content (with the mentions of an ask that pings), its buttons
// and its file (sameFile; none for a text part). Discord trims the
// whitespace around a message's content, so that is ignored.
func match(page []historyMessage, me string, part relay.Part) (string, bool) {
	slices.SortFunc(page, func(a, b historyMessage) int { return compareSnowflakes(a.ID, b.ID) })
	want := strings.TrimSpace(renderPart(part).content)
	for _, m := range page {
		if m.Author.ID == me && sameFile(m.Attachments, part.Upload) && strings.TrimSpace(m.Content) == want && sameButtons(m.Components, part.Choices) {
			return m.ID, true
		}
	}
	return "", false
}

func compareSnowflakes(a, b string) int {
	x, _ := strconv.ParseUint(a, 10, 64)
	y, _ := strconv.ParseUint(b, 10, 64)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// selfID is the bot's user ID (GET /users/@me), asked once.
func (p *Poster) selfID(ctx context.Context) (string, error) {
	p.mu.Lock()
	id := p.self
	p.mu.Unlock()
	if id != "" {
		return id, nil
	}
	body, err := p.do(ctx, http.MethodGet, discordgo.EndpointUser("@me"), "GET /users/@me", nil)
	if err != nil {
		return "", err
	}
	if id, err = idOf(body, "user"); err != nil {
		return "", err
	}
	p.mu.Lock()
	p.self = id
	p.mu.Unlock()
	return id, nil
}
