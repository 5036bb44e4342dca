package demo

import (
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// The fakes' tokens are made up; the fakes accept exactly these.
const (
	discordToken = "demo-discord-bot-token"
	slackBot     = "xoxb-demo-bot-token"
	slackApp     = "xapp-demo-app-token"
	// telegramToken has the shape BotFather issues, as validation asks.
	telegramToken = "7000000002:AADemoTokenDemoTokenDemoTokenDemo00"

	// TelegramPostsPerMinute is the demo bot's posting budget, which its
	// fake enforces as the service does (429 over it): 60 times the
	// documented 20 a minute, so the demo's bursts show no waits.
	TelegramPostsPerMinute = 1200

	discordParent = "100000000000000010"
	slackChannel  = "C0DEMO0001"
)

// Fakes are the local fake Discord, Slack and Telegram, on 127.0.0.1,
// each with one bot that has every permission or scope the relay needs, a
// channel for it (Telegram: a supergroup with topics), and an authorized
// user.
type Fakes struct {
	Discord  *fakediscord.Server
	Slack    *fakeslack.Server
	Telegram *faketelegram.Server
}

// StartFakes starts the three fakes; Close stops them.
func StartFakes() (*Fakes, error) {
	d, err := fakediscord.Start(fakediscord.Options{
		Tokens: []string{discordToken}, Channels: []string{discordParent}, HeartbeatInterval: 5 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("starting the fake Discord: %w", err)
	}
	s, err := fakeslack.Start(fakeslack.Options{
		BotTokens: []string{slackBot}, AppTokens: []string{slackApp}, Channels: []string{slackChannel}, PingInterval: 5 * time.Second,
	})
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("starting the fake Slack: %w", err)
	}
	tg, err := faketelegram.Start(faketelegram.Options{Token: telegramToken, Limit: faketelegram.ScaledLimit(TelegramPostsPerMinute)})
	if err != nil {
		d.Close()
		s.Close()
		return nil, fmt.Errorf("starting the fake Telegram: %w", err)
	}
	return &Fakes{Discord: d, Slack: s, Telegram: tg}, nil
}

// Close stops the fakes.
func (f *Fakes) Close() {
	f.Discord.Close()
	f.Slack.Close()
	f.Telegram.Close()
}

// Token names one of the fakes' tokens, for a spec's secret references.
type Token struct {
	// Env is the variable a spec names with fromEnv; File the file name
	// it names with fromFile; Value the token itself.
	Env, File, Value string
}

// Tokens are the fakes' made-up tokens, in the spec's order (Discord's
// bot token, Slack's bot token, Slack's app token, Telegram's bot token);
// tests check that
// none of them ever shows where a secret must not.
func Tokens() []Token {
	return []Token{
		{"DEMO_DISCORD_TOKEN", "discord.token", discordToken},
		{"DEMO_SLACK_BOT_TOKEN", "slack-bot.token", slackBot},
		{"DEMO_SLACK_APP_TOKEN", "slack-app.token", slackApp},
		{"DEMO_TELEGRAM_TOKEN", "telegram.token", telegramToken},
	}
}

// Spec is a spec of one bot on each fake, "discord", "slack" and
// "telegram", verbose
// (every message an agent sends is posted), each token named by ref.
func (f *Fakes) Spec(ref func(Token) string) string {
	t := Tokens()
	return fmt.Sprintf(`apiVersion: reconciler.gjc.dev/v1alpha1
kind: ChatDaemon
metadata:
  name: discord
spec:
  provider: discord
  generation: 1
  verbosity: verbose
  discord:
    botToken: %s
    applicationId: %q
    guildId: %q
    parentChannelId: %q
    authorizedUserIds: [%q]
    apiURL: %s
---
apiVersion: reconciler.gjc.dev/v1alpha1
kind: ChatDaemon
metadata:
  name: slack
spec:
  provider: slack
  generation: 1
  verbosity: verbose
  slack:
    botToken: %s
    appToken: %s
    workspaceId: %s
    channelId: %s
    authorizedUserIds: [%s]
    apiURL: %s
---
apiVersion: reconciler.gjc.dev/v1alpha1
kind: ChatDaemon
metadata:
  name: telegram
spec:
  provider: telegram
  generation: 1
  verbosity: verbose
  telegram:
    botToken: %s
    chatId: "%d"
    authorizedUserIds: ["%d"]
    apiURL: %s
    postsPerMinute: %d
`, ref(t[0]), fakediscord.ApplicationID(discordToken), f.Discord.GuildID(), discordParent, AuthorizedDiscordUser, f.Discord.URL(),
		ref(t[1]), ref(t[2]), f.Slack.TeamID(), slackChannel, AuthorizedSlackUser, f.Slack.URL(),
		ref(t[3]), faketelegram.DefaultChatID, AuthorizedTelegramUser.ID, f.Telegram.URL(), TelegramPostsPerMinute)
}

// FromEnv names a token by its variable.
func FromEnv(t Token) string { return "{fromEnv: " + t.Env + "}" }

// FromFile names a token by its file, beside the spec.
func FromFile(t Token) string { return "{fromFile: " + t.File + "}" }
