package telegram

import (
	"context"
	"fmt"
	"net/http"

	tgbot "github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/doctor"
	"gjc.dev/reconciler/pkg/spec"
)

// Doctor checks cfg against Telegram with reads only (chat.Provider): the
// bot token and whether the bot reads every group message (getMe), the
// chat (getChat: a supergroup, with or without topics), that no webhook
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
	if me.CanReadAllGroupMessages {
		lines = append(lines, doctor.Pass("replies", "privacy mode is off: the bot sees every message of the group"))
	} else {
		lines = append(lines, doctor.Pass("replies", "privacy mode is on: the bot sees replies only as an admin of the group (or turn it off with BotFather: /setprivacy, Disable)"))
	}
	chat, err := api.GetChat(ctx, &tgbot.GetChatParams{ChatID: tg.ChatID})
	switch {
	case err != nil:
		lines = append(lines, doctor.Fail("chat", fmt.Sprintf("getChat %s answered %v: check chatId, and that the bot is a member of the group", tg.ChatID, scrub(err, token))))
	case chat.IsForum:
		lines = append(lines, doctor.Pass("chat", fmt.Sprintf("%q (%s), a supergroup with topics: a topic per session", chat.Title, tg.ChatID)))
	default:
		lines = append(lines, doctor.Pass("chat", fmt.Sprintf("%q (%s), a supergroup without topics: a root message and its replies per session", chat.Title, tg.ChatID)))
	}
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
