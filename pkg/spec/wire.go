package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// maxWireConfig caps the config a daemon reads from its stdin.
const maxWireConfig = 64 << 10

// wireConfig is the resolved config as the reconciler hands it to a daemon on
// stdin. It is the one place secrets are written out, and only to that pipe.
type wireConfig struct {
	Name                string         `json:"name"`
	Provider            Provider       `json:"provider"`
	Generation          Generation     `json:"generation"`
	ReadyTimeout        time.Duration  `json:"readyTimeout"`
	GracefulTimeout     time.Duration  `json:"gracefulTimeout"`
	KillTimeout         time.Duration  `json:"killTimeout"`
	InboundSweep        time.Duration  `json:"inboundSweep,omitempty"`
	Redact              bool           `json:"redact"`
	Verbosity           Verbosity      `json:"verbosity"`
	PingOnAsk           bool           `json:"pingOnAsk,omitempty"`
	LongTextAsFile      int            `json:"longTextAsFile,omitempty"`
	MaxInboundFileBytes int64          `json:"maxInboundFileBytes,omitempty"`
	Discord             *wireDiscord   `json:"discord,omitempty"`
	Slack               *wireSlackSpec `json:"slack,omitempty"`
	Telegram            *wireTelegram  `json:"telegram,omitempty"`
}

type wireTelegram struct {
	BotToken          string   `json:"botToken"`
	ChatID            string   `json:"chatId"`
	AuthorizedUserIDs []string `json:"authorizedUserIds,omitempty"`
	APIURL            string   `json:"apiURL,omitempty"`
	PostsPerMinute    int      `json:"postsPerMinute,omitempty"`
}

type wireDiscord struct {
	BotToken          string   `json:"botToken"`
	ApplicationID     string   `json:"applicationId"`
	GuildID           string   `json:"guildId"`
	ParentChannelID   string   `json:"parentChannelId"`
	AuthorizedUserIDs []string `json:"authorizedUserIds,omitempty"`
	APIURL            string   `json:"apiURL,omitempty"`
}

type wireSlackSpec struct {
	BotToken          string   `json:"botToken"`
	AppToken          string   `json:"appToken"`
	WorkspaceID       string   `json:"workspaceId"`
	ChannelID         string   `json:"channelId"`
	AuthorizedUserID  string   `json:"authorizedUserId,omitempty"`
	AuthorizedUserIDs []string `json:"authorizedUserIds,omitempty"`
	APIURL            string   `json:"apiURL,omitempty"`
}

// EncodeWire writes the config, secrets included, for a daemon's stdin.
func EncodeWire(w io.Writer, c *Config) error {
	wc := wireConfig{
		Name: c.Name, Provider: c.Provider, Generation: c.Generation,
		ReadyTimeout: c.ReadyTimeout, GracefulTimeout: c.GracefulTimeout, KillTimeout: c.KillTimeout,
		InboundSweep: c.InboundSweep, Redact: c.Redact, Verbosity: c.Verbosity, PingOnAsk: c.PingOnAsk,
		LongTextAsFile: c.LongTextAsFile, MaxInboundFileBytes: c.MaxInboundFileBytes,
	}
	if d := c.Discord; d != nil {
		wc.Discord = &wireDiscord{d.BotToken.Reveal(), d.ApplicationID, d.GuildID, d.ParentChannelID, slices.Clone(d.AuthorizedUserIDs), d.APIURL}
	}
	if s := c.Slack; s != nil {
		wc.Slack = &wireSlackSpec{s.BotToken.Reveal(), s.AppToken.Reveal(), s.WorkspaceID, s.ChannelID, s.AuthorizedUserID, slices.Clone(s.AuthorizedUserIDs), s.APIURL}
	}
	if tg := c.Telegram; tg != nil {
		wc.Telegram = &wireTelegram{tg.BotToken.Reveal(), tg.ChatID, slices.Clone(tg.AuthorizedUserIDs), tg.APIURL, tg.PostsPerMinute}
	}
	return json.NewEncoder(w).Encode(wc)
}

// ErrNoConfig is DecodeWire's answer to an input closed before its first
// byte: the reconciler discarded a daemon it started ahead of time.
var ErrNoConfig = errors.New("no config: stdin closed before any byte")

// DecodeWire reads a config written by EncodeWire. Errors never quote the
// input: it holds tokens.
func DecodeWire(r io.Reader) (*Config, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxWireConfig+1))
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	if len(data) == 0 {
		return nil, ErrNoConfig
	}
	if len(data) > maxWireConfig {
		return nil, fmt.Errorf("config larger than %d bytes", maxWireConfig)
	}
	// EncodeWire ends the config with a newline. Without it the config was
	// cut short, even if what came is valid JSON (a hand-over to a warm
	// replacement that failed one byte before the end): refused, so a
	// daemon never starts on a config its reconciler gave up on.
	if data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("config cut short (%d bytes, no final newline)", len(data))
	}
	var wc wireConfig
	if err := json.Unmarshal(data, &wc); err != nil {
		return nil, fmt.Errorf("config is not the JSON the reconciler writes (%d bytes)", len(data))
	}
	c := &Config{
		Name: wc.Name, Provider: wc.Provider, Generation: wc.Generation, State: StateRunning,
		ReadyTimeout: wc.ReadyTimeout, GracefulTimeout: wc.GracefulTimeout, KillTimeout: wc.KillTimeout,
		InboundSweep: wc.InboundSweep, Redact: wc.Redact, Verbosity: wc.Verbosity, PingOnAsk: wc.PingOnAsk,
		LongTextAsFile: wc.LongTextAsFile, MaxInboundFileBytes: wc.MaxInboundFileBytes,
	}
	if c.MaxInboundFileBytes == 0 {
		c.MaxInboundFileBytes = DefaultMaxInboundFileBytes // from a reconciler before files
	}
	if c.InboundSweep == 0 {
		c.InboundSweep = DefaultInboundSweep // from a reconciler before inboundSweep
	}
	switch {
	case wc.Provider == ProviderDiscord && wc.Discord != nil && wc.Slack == nil && wc.Telegram == nil && wc.Discord.BotToken != "":
		d := wc.Discord
		c.Discord = &DiscordConfig{NewSecret(d.BotToken), d.ApplicationID, d.GuildID, d.ParentChannelID, d.AuthorizedUserIDs, d.APIURL}
	case wc.Provider == ProviderSlack && wc.Slack != nil && wc.Discord == nil && wc.Telegram == nil && wc.Slack.BotToken != "" && wc.Slack.AppToken != "":
		s := wc.Slack
		c.Slack = &SlackConfig{NewSecret(s.BotToken), NewSecret(s.AppToken), s.WorkspaceID, s.ChannelID, s.AuthorizedUserID, s.AuthorizedUserIDs, s.APIURL}
	case wc.Provider == ProviderTelegram && wc.Telegram != nil && wc.Discord == nil && wc.Slack == nil && wc.Telegram.BotToken != "":
		tg := wc.Telegram
		c.Telegram = &TelegramConfig{NewSecret(tg.BotToken), tg.ChatID, tg.AuthorizedUserIDs, tg.APIURL, postsPerMinute(&tg.PostsPerMinute)}
	default:
		return nil, fmt.Errorf("config for provider %q lacks its block or its tokens", wc.Provider)
	}
	return c, nil
}
