package telegram

import (
	"context"
	"fmt"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/inbound"
)

// eyes is the accepted-message reaction.
const eyes = "👀"

// History implements inbound.Service, and reads nothing: the Bot API has
// no way to read a chat's messages. Nothing is missed for it: the
// service keeps every update a bot has not confirmed (for 24 hours), and
// the poll loop confirms an update only after it landed (offset.go), so
// replies written while the daemon was down arrive through getUpdates
// once it is back.
func (p *Poster) History(context.Context, string, string, time.Time, func(inbound.Event) error) error {
	return nil
}

// React implements inbound.Service: setMessageReaction with 👀, which
// replaces the bot's reactions on the message, so adding it again is the
// same reaction.
func (p *Poster) React(ctx context.Context, _ string, id string) error {
	mid, err := messageID(id)
	if err != nil {
		return &inbound.PermanentError{Err: err}
	}
	_, err = p.api.SetMessageReaction(ctx, &tgbot.SetMessageReactionParams{
		ChatID: p.chat, MessageID: int(mid),
		Reaction: []models.ReactionType{{Type: models.ReactionTypeTypeEmoji, ReactionTypeEmoji: &models.ReactionTypeEmoji{Type: models.ReactionTypeTypeEmoji, Emoji: eyes}}},
	})
	if err == nil {
		return nil
	}
	err = p.scrub(fmt.Errorf("telegram reacting to %s: %w", id, err))
	if containsAny(err.Error(), "message to react not found", "REACTION_INVALID", "MESSAGE_ID_INVALID") {
		return &inbound.PermanentError{Err: err}
	}
	return err
}
