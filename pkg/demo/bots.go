package demo

import (
	"context"
	"fmt"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// bot is one of the demo's daemons as the demo drives it, on its own
// fake: the demo asks it, never which service it is on.
type bot interface {
	// connected waits until the daemon's bot is connected to the fake.
	connected(ctx context.Context) error
	// reply waits until the relay posted in ReplySession's thread, then
	// has the authorized user and another one reply there.
	reply(ctx context.Context) error
}

// bots are the demo's daemons by name, one per fake.
func (e *Env) bots() map[string]bot {
	return map[string]bot{"discord": onDiscord{e.Discord}, "slack": onSlack{e.Slack}, "telegram": onTelegram{e.Telegram}}
}

func (e *Env) bot(name string) (bot, error) {
	b, ok := e.bots()[name]
	if !ok {
		return nil, fmt.Errorf("demo: no bot named %q", name)
	}
	return b, nil
}

type onDiscord struct{ f *fakediscord.Server }

func (b onDiscord) connected(ctx context.Context) error {
	_, err := b.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return s.Tokens[discordToken].Live > 0 })
	return err
}

func (b onDiscord) reply(ctx context.Context) error {
	var thread string
	if _, err := b.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
		thread = discordThread(s)
		return thread != ""
	}); err != nil {
		return err
	}
	if _, err := b.f.InjectMessage(thread, AuthorizedDiscordUser, AuthorizedReply); err != nil {
		return fmt.Errorf("demo reply: %w", err)
	}
	if _, err := b.f.InjectMessage(thread, OtherDiscordUser, OtherReply); err != nil {
		return fmt.Errorf("demo reply: %w", err)
	}
	return nil
}

type onSlack struct{ f *fakeslack.Server }

func (b onSlack) connected(ctx context.Context) error {
	_, err := b.f.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return s.Apps[slackApp].Live > 0 })
	return err
}

func (b onSlack) reply(ctx context.Context) error {
	var root string
	if _, err := b.f.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		root = slackThread(s)
		return root != ""
	}); err != nil {
		return err
	}
	if _, err := b.f.InjectMessage(slackChannel, AuthorizedSlackUser, AuthorizedReply, root); err != nil {
		return fmt.Errorf("demo reply: %w", err)
	}
	if _, err := b.f.InjectMessage(slackChannel, OtherSlackUser, OtherReply, root); err != nil {
		return fmt.Errorf("demo reply: %w", err)
	}
	return nil
}

type onTelegram struct{ f *faketelegram.Server }

// connected: the daemon is polling for updates.
func (b onTelegram) connected(ctx context.Context) error {
	_, err := b.f.WaitFor(ctx, func(s faketelegram.Snapshot) bool { return s.Polls.Live > 0 })
	return err
}

func (b onTelegram) reply(ctx context.Context) error {
	var topic int64
	if _, err := b.f.WaitFor(ctx, func(s faketelegram.Snapshot) bool {
		topic = telegramTopic(s)
		return topic != 0
	}); err != nil {
		return err
	}
	for _, in := range []faketelegram.Inbound{
		{From: AuthorizedTelegramUser, Thread: topic, Text: AuthorizedReply},
		{From: OtherTelegramUser, Thread: topic, Text: OtherReply},
	} {
		if _, err := b.f.InjectMessage(in); err != nil {
			return fmt.Errorf("demo reply: %w", err)
		}
	}
	return nil
}
