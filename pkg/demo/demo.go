// Package demo sets up a world in which the whole reconciler runs with no
// real tokens: the local fake Discord and Slack servers on 127.0.0.1, a
// temporary agent dir, and a spec of one bot on each pointing at them.
package demo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

// The demo's tokens are made up; the fakes accept exactly these. They reach
// daemons the way real ones would: named by fromEnv in the spec.
const (
	discordToken = "demo-discord-bot-token"
	slackBot     = "xoxb-demo-bot-token"
	slackApp     = "xapp-demo-app-token"
	slackChannel = "C0DEMO0001"
)

// Env is a running demo world.
type Env struct {
	AgentDir string
	SpecPath string
	Discord  *fakediscord.Server
	Slack    *fakeslack.Server
	started  []interface{ Close() } // the fakes Close stops
}

// Setup starts the fakes, writes the agent dir and spec, and sets the token
// variables in this process's environment.
func Setup() (*Env, error) {
	e := &Env{}
	var err error
	if e.Discord, err = fakediscord.Start(fakediscord.Options{
		Tokens: []string{discordToken}, Channels: []string{"100000000000000010"}, HeartbeatInterval: 5 * time.Second,
	}); err != nil {
		return nil, fmt.Errorf("starting the fake Discord: %w", err)
	}
	e.started = append(e.started, e.Discord)
	if e.Slack, err = fakeslack.Start(fakeslack.Options{
		BotTokens: []string{slackBot}, AppTokens: []string{slackApp}, Channels: []string{slackChannel}, PingInterval: 5 * time.Second,
	}); err != nil {
		e.Close()
		return nil, fmt.Errorf("starting the fake Slack: %w", err)
	}
	e.started = append(e.started, e.Slack)
	if e.AgentDir, err = os.MkdirTemp("", "reconciler-demo-"); err != nil {
		e.Close()
		return nil, err
	}
	e.SpecPath = filepath.Join(e.AgentDir, "daemons.yaml")
	for k, v := range map[string]string{"DEMO_DISCORD_TOKEN": discordToken, "DEMO_SLACK_BOT_TOKEN": slackBot, "DEMO_SLACK_APP_TOKEN": slackApp} {
		if err := os.Setenv(k, v); err != nil {
			e.Close()
			return nil, err
		}
	}
	if err := os.WriteFile(e.SpecPath, []byte(e.spec()), 0o600); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func (e *Env) spec() string {
	return fmt.Sprintf(`# The demo's spec: edit it while the demo runs (raise a generation, set
# state: Stopped) and watch the loop converge. verbose: every message an
# agent sends is posted, info included. authorizedUserIds: whose replies
# in a session's thread land in the daemon's inbox.
apiVersion: reconciler.gjc.dev/v1alpha1
kind: ChatDaemon
metadata:
  name: discord
spec:
  provider: discord
  generation: 1
  verbosity: verbose
  discord:
    botToken: {fromEnv: DEMO_DISCORD_TOKEN}
    applicationId: "100000000000000020"
    guildId: %q
    parentChannelId: "100000000000000010"
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
    botToken: {fromEnv: DEMO_SLACK_BOT_TOKEN}
    appToken: {fromEnv: DEMO_SLACK_APP_TOKEN}
    workspaceId: %s
    channelId: %s
    authorizedUserIds: [%s]
    apiURL: %s
`, e.Discord.GuildID(), AuthorizedDiscordUser, e.Discord.URL(), e.Slack.TeamID(), slackChannel, AuthorizedSlackUser, e.Slack.URL())
}

// Close stops the fakes and removes the agent dir. Stop the daemons first.
func (e *Env) Close() error {
	for _, f := range e.started {
		f.Close()
	}
	var err error
	if e.AgentDir != "" {
		err = os.RemoveAll(e.AgentDir)
	}
	return errors.Join(err)
}

// Tokens are the demo's made-up tokens, for tests that check none of
// them ever shows.
func Tokens() []string { return []string{discordToken, slackBot, slackApp} }
