package spec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Config is a validated object with its secrets resolved: what a daemon runs
// with and what its identity is computed from.
type Config struct {
	Name            string
	Provider        Provider
	Generation      Generation
	State           DesiredState
	ReadyTimeout    time.Duration
	GracefulTimeout time.Duration
	KillTimeout     time.Duration
	InboundSweep    time.Duration
	Redact          bool
	Verbosity       Verbosity
	// PingOnAsk is the provider block's pingOnAsk.
	PingOnAsk bool
	// LongTextAsFile is the spec's longTextAsFile: a text of more parts
	// posts its first part and the whole text as a .md file; 0 is off.
	LongTextAsFile int
	// MaxInboundFileBytes is the provider block's maxInboundFileBytes:
	// the largest file of a reply that lands (DefaultMaxInboundFileBytes).
	MaxInboundFileBytes int64
	Discord             *DiscordConfig
	Slack               *SlackConfig
	Telegram            *TelegramConfig
}

// DiscordConfig is the resolved Discord block.
type DiscordConfig struct {
	BotToken          Secret
	ApplicationID     string
	GuildID           string
	ParentChannelID   string
	AuthorizedUserIDs []string
	APIURL            string
}

// SlackConfig is the resolved Slack block.
type SlackConfig struct {
	BotToken          Secret
	AppToken          Secret
	WorkspaceID       string
	ChannelID         string
	AuthorizedUserID  string
	AuthorizedUserIDs []string
	APIURL            string
}

// TelegramConfig is the resolved Telegram block.
type TelegramConfig struct {
	BotToken          Secret
	ChatID            string
	AuthorizedUserIDs []string
	APIURL            string
	// PostsPerMinute is the chat's posting budget (0: the default,
	// DefaultPostsPerMinute).
	PostsPerMinute int
}

// resolved is what Resolve learns besides the Config.
type resolved struct {
	config   Config
	warnings []string
	// secretFiles and envNames are the secret sources the config depends on.
	secretFiles []string
	envNames    []string
}

// resolveConfig reads the secrets of a defaulted object. It runs on invalid
// objects too, so an unset variable is reported along with every other error;
// a block that does not match the provider is not resolved. Relative fromFile
// paths are taken from specDir.
func resolveConfig(d *ChatDaemon, specDir string, lookupEnv func(string) (string, bool)) (resolved, field.ErrorList) {
	r := &secretResolver{lookupEnv: lookupEnv, baseDir: specDir, uid: os.Getuid()}
	s := d.Spec
	out := resolved{config: Config{
		Name:            d.Name,
		Provider:        s.Provider,
		Generation:      *s.Generation,
		State:           s.State,
		ReadyTimeout:    s.ReadyTimeout.Duration,
		GracefulTimeout: s.GracefulTimeout.Duration,
		KillTimeout:     s.KillTimeout.Duration,
		InboundSweep:    s.InboundSweep.Duration,
		Redact:          s.Redact,
		Verbosity:       s.Verbosity,
		LongTextAsFile:  s.LongTextAsFile,
		// The provider block's, below; the default without one.
		MaxInboundFileBytes: DefaultMaxInboundFileBytes,
	}}
	var errs field.ErrorList
	secret := func(ref SecretRef, p *field.Path) Secret {
		if len(validateSecretRef(ref, p)) > 0 {
			return Secret{} // Validate reports it
		}
		v, e, w := r.resolve(ref, p)
		errs = append(errs, e...)
		out.warnings = append(out.warnings, w...)
		return v
	}
	p := field.NewPath("spec")
	switch s.Provider {
	case ProviderDiscord:
		if s.Discord == nil {
			break
		}
		out.config.PingOnAsk = s.Discord.PingOnAsk
		out.config.MaxInboundFileBytes = maxInboundFileBytes(s.Discord.MaxInboundFileBytes)
		out.config.Discord = &DiscordConfig{
			BotToken:          secret(s.Discord.BotToken, p.Child("discord", "botToken")),
			ApplicationID:     s.Discord.ApplicationID,
			GuildID:           s.Discord.GuildID,
			ParentChannelID:   s.Discord.ParentChannelID,
			AuthorizedUserIDs: slices.Clone(s.Discord.AuthorizedUserIDs),
			APIURL:            s.Discord.APIURL,
		}
	case ProviderSlack:
		if s.Slack == nil {
			break
		}
		out.config.PingOnAsk = s.Slack.PingOnAsk
		out.config.MaxInboundFileBytes = maxInboundFileBytes(s.Slack.MaxInboundFileBytes)
		out.config.Slack = &SlackConfig{
			BotToken:          secret(s.Slack.BotToken, p.Child("slack", "botToken")),
			AppToken:          secret(s.Slack.AppToken, p.Child("slack", "appToken")),
			WorkspaceID:       s.Slack.WorkspaceID,
			ChannelID:         s.Slack.ChannelID,
			AuthorizedUserID:  s.Slack.AuthorizedUserID,
			AuthorizedUserIDs: slices.Clone(s.Slack.AuthorizedUserIDs),
			APIURL:            s.Slack.APIURL,
		}
	case ProviderTelegram:
		if s.Telegram == nil {
			break
		}
		out.config.PingOnAsk = s.Telegram.PingOnAsk
		out.config.MaxInboundFileBytes = maxInboundFileBytes(s.Telegram.MaxInboundFileBytes)
		out.config.Telegram = &TelegramConfig{
			BotToken:          secret(s.Telegram.BotToken, p.Child("telegram", "botToken")),
			ChatID:            s.Telegram.ChatID,
			AuthorizedUserIDs: slices.Clone(s.Telegram.AuthorizedUserIDs),
			APIURL:            s.Telegram.APIURL,
			PostsPerMinute:    postsPerMinute(s.Telegram.PostsPerMinute),
		}
	}
	errs = append(errs, tokenShapeErrors(out.config, p)...)
	out.secretFiles = r.files
	out.envNames = r.envNames
	return out, errs
}

// tokenShapeErrors catches the token mistakes a service would only answer
// with "invalid_auth" or close code 4004, forever: Slack's two tokens
// swapped (a bot token starts with xoxb-, an app-level one with xapp-),
// and a Discord token written with the "Bot " that goes in its header.
// The messages never quote a token.
func tokenShapeErrors(c Config, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	invalid := func(path *field.Path, msg string) {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, msg))
	}
	if d := c.Discord; d != nil && len(d.BotToken.Reveal()) >= 4 && strings.EqualFold(d.BotToken.Reveal()[:4], "bot ") {
		invalid(p.Child("discord", "botToken"), `starts with "Bot ": write the token alone; the "Bot " prefix belongs in the Authorization header, which the daemon adds`)
	}
	if sl := c.Slack; sl != nil {
		if strings.HasPrefix(sl.BotToken.Reveal(), "xapp-") {
			invalid(p.Child("slack", "botToken"), "is an app-level token (xapp-); a bot token starts with xoxb-: are botToken and appToken swapped?")
		}
		if strings.HasPrefix(sl.AppToken.Reveal(), "xoxb-") {
			invalid(p.Child("slack", "appToken"), "is a bot token (xoxb-); an app-level token starts with xapp-: are botToken and appToken swapped?")
		}
	}
	if tg := c.Telegram; tg != nil && !tg.BotToken.IsZero() && !TelegramTokenShape(tg.BotToken.Reveal()) {
		invalid(p.Child("telegram", "botToken"), "is not a bot token as BotFather issues it (<bot id>:<35 characters of A-Z a-z 0-9 _ ->)")
	}
	return errs
}

// specDir is the directory relative fromFile paths are resolved against.
func specDir(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return filepath.Dir(file)
	}
	return filepath.Dir(abs)
}
