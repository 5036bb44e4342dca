package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/relay"
)

// Eyes is the reaction an accepted reply gets.
const Eyes = "👀"

var _ inbound.Service = (*Poster)(nil)

// EventOf is a Discord message (from the gateway or the history) as the
// inbound side judges it. self is the bot's own user id.
func EventOf(m *discordgo.Message, self string) inbound.Event {
	ev := inbound.Event{ID: m.ID, Place: m.ChannelID, Text: m.Content, Time: m.Timestamp, Files: remoteFiles(m.Attachments)}
	if m.Author != nil {
		ev.User = m.Author.ID
		ev.Self = self != "" && m.Author.ID == self
		ev.Bot = m.Author.Bot || m.Author.System || ev.Self
	}
	if m.WebhookID != "" {
		ev.Bot = true // a webhook post claims any name it likes
	}
	switch m.Type {
	case discordgo.MessageTypeDefault, discordgo.MessageTypeReply:
	default:
		ev.Kind = inbound.Other
	}
	return ev
}

// SelfID is the bot's user id (GET /users/@me, asked once).
func (p *Poster) SelfID(ctx context.Context) (string, error) { return p.selfID(ctx) }

// History implements inbound.Service: it pages forward through the
// thread's messages after after (or since since), oldest first, waiting
// out rate limits.
func (p *Poster) History(ctx context.Context, place, after string, since time.Time, fn func(inbound.Event) error) error {
	me, err := p.selfID(ctx)
	if err != nil {
		return err
	}
	cursor := floorSnowflake(since, 0)
	if after != "" && compareSnowflakes(after, cursor) > 0 {
		cursor = after
	}
	for {
		page, err := p.historyPage(ctx, place, cursor)
		if err != nil {
			return err
		}
		for _, m := range page {
			if err := fn(EventOf(m, me)); err != nil {
				return err
			}
		}
		if len(page) < historyPage {
			return nil
		}
		cursor = page[len(page)-1].ID
	}
}

// historyPage reads the page after cursor, sorted oldest first (Discord
// answers newest first), retrying after a 429 for as long as ctx allows.
func (p *Poster) historyPage(ctx context.Context, place, cursor string) ([]*discordgo.Message, error) {
	u := discordgo.EndpointChannelMessages(place) + "?after=" + cursor + "&limit=" + strconv.Itoa(historyPage)
	for {
		body, err := p.do(ctx, http.MethodGet, u, bucketOf(http.MethodGet, place, "/messages"), nil)
		if wait, limited := rateLimited(err); limited {
			if werr := sleep(ctx, wait); werr != nil {
				return nil, werr
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the history of thread %s: %w", place, err)
		}
		var page []*discordgo.Message
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, fmt.Errorf("reading the history of thread %s: %w", place, err)
		}
		for _, m := range page {
			if m == nil || m.ID == "" {
				return nil, fmt.Errorf("reading the history of thread %s: a message without an id", place)
			}
		}
		slices.SortFunc(page, func(a, b *discordgo.Message) int { return compareSnowflakes(a.ID, b.ID) })
		return page, nil
	}
}

// React implements inbound.Service. Discord takes a repeat of the same
// reaction by the same bot as success (204).
func (p *Poster) React(ctx context.Context, place, id string) error {
	u := discordgo.EndpointMessageReaction(place, id, url.PathEscape(Eyes), "@me")
	for {
		_, err := p.do(ctx, http.MethodPut, u, bucketOf(http.MethodPut, place, "/messages/reactions"), nil)
		if wait, limited := rateLimited(err); limited {
			if werr := sleep(ctx, wait); werr != nil {
				return werr
			}
			continue
		}
		var re *relay.Error
		if errors.As(err, &re) && (re.Kind == relay.Refused || re.Kind == relay.Blocked) && !errors.Is(err, errUnauthorized) {
			// The message or thread is gone, or the bot may not react
			// there: asking again will not change that.
			return &inbound.PermanentError{Err: fmt.Errorf("reacting to %s in %s: %w", id, place, err)}
		}
		if err != nil {
			return fmt.Errorf("reacting to %s in %s: %w", id, place, err)
		}
		return nil
	}
}

func rateLimited(err error) (time.Duration, bool) {
	var re *relay.Error
	if errors.As(err, &re) && re.Kind == relay.RateLimited {
		return re.RetryAfter, true
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
