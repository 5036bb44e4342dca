package telegram

import (
	"context"
	"fmt"
	"net/http"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/doctor"
	"gjc.dev/reconciler/pkg/spec"
)

// Doctor checks cfg against Telegram with reads only (chat.Provider): the
// bot token (getMe), the chat (getChat: a supergroup, with or without
// topics), that the bot sees replies (privacy mode off, or an admin:
// getChatMember), that no webhook
// keeps the daemon from polling (getWebhookInfo), then the clock.
func (provider) Doctor(ctx context.Context, cfg *spec.Config) []doctor.Line {
	tg := cfg.Telegram
	timed := &doctor.Timed{}
	token := tg.BotToken.Reveal()
	api, err := tgbot.New(token, tgbot.WithServerURL(apiURL(tg)), tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(doctor.RequestTimeout, &http.Client{Timeout: doctor.RequestTimeout, Transport: timed}),
		tgbot.WithErrorsHandler(func(error) {}))
	if err != nil {
		return []doctor.Line{doctor.Fail("bot token", scrub(err, token).Error())}
	}
	me, err := api.GetMe(ctx)
	if err != nil {
		if refusedToken(err) != nil {
			return []doctor.Line{doctor.Fail("bot token", "Telegram refused the bot token: create a new one with BotFather (/token) and put it where botToken points")}
		}
		return []doctor.Line{doctor.Fail("bot token", fmt.Sprintf("could not call getMe: %v; check the network (and apiURL if set)", scrub(err, token)))}
	}
	lines := []doctor.Line{doctor.Pass("bot token", fmt.Sprintf("bot @%s (%d)", me.Username, me.ID))}
	chat, err := api.GetChat(ctx, &tgbot.GetChatParams{ChatID: tg.ChatID})
	switch {
	case err != nil:
		lines = append(lines, doctor.Fail("chat", fmt.Sprintf("getChat %s answered %v: check chatId, and that the bot is a member of the group", tg.ChatID, scrub(err, token))))
	case chat.IsForum:
		lines = append(lines, doctor.Pass("chat", fmt.Sprintf("%q (%s), a supergroup with topics: a topic per session", chat.Title, tg.ChatID)))
	default:
		lines = append(lines, doctor.Pass("chat", fmt.Sprintf("%q (%s), a supergroup without topics: a root message and its replies per session", chat.Title, tg.ChatID)))
	}
	lines = append(lines, repliesLine(ctx, api, tg.ChatID, me.ID, me.CanReadAllGroupMessages, token))
	hook, err := api.GetWebhookInfo(ctx)
	switch {
	case err != nil:
		lines = append(lines, doctor.Fail("webhook", fmt.Sprintf("could not call getWebhookInfo: %v", scrub(err, token))))
	case hook.URL != "":
		lines = append(lines, doctor.Fail("webhook", "a webhook is set for this bot, so the daemon cannot poll (WebhookSet): remove it with deleteWebhook; the daemon never does"))
	default:
		lines = append(lines, doctor.Pass("webhook", "none: the daemon can poll getUpdates"))
	}
	return append(lines, timed.Clock("Telegram")...)
}

// repliesLine: the bot sees the replies it relays only with privacy mode
// off, or as an administrator of the group.
func repliesLine(ctx context.Context, api *tgbot.Bot, chatID string, self int64, readsAll bool, token string) doctor.Line {
	const check = "replies"
	if readsAll {
		return doctor.Pass(check, "privacy mode is off: the bot sees every message of the group")
	}
	m, err := api.GetChatMember(ctx, &tgbot.GetChatMemberParams{ChatID: chatID, UserID: self})
	switch {
	case err != nil:
		return doctor.Fail(check, fmt.Sprintf("privacy mode is on, and getChatMember answered %v: turn privacy mode off with BotFather (/setprivacy, Disable), or make the bot an admin of the group", scrub(err, token)))
	case m.Type == models.ChatMemberTypeAdministrator || m.Type == models.ChatMemberTypeOwner:
		return doctor.Pass(check, "privacy mode is on, but the bot is an admin of the group: it sees every message")
	}
	return doctor.Fail(check, "privacy mode is on and the bot is no admin of the group: it would not see replies; turn privacy mode off with BotFather (/setprivacy, Disable, then add the bot to the group again), or make it an admin")
}
