package discord

import (
	"context"
	"fmt"
	"net/http"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/internal/rewrite"
	"gjc.dev/reconciler/pkg/doctor"
	"gjc.dev/reconciler/pkg/spec"
)

// Doctor checks cfg against Discord with GETs only (chat.Provider): the
// token, the application and its intents, the parent channel, the bot's
// permissions there and the clock. Nothing can be asked with a refused
// token, so then only the clock follows.
func (provider) Doctor(ctx context.Context, cfg *spec.Config) []doctor.Line {
	d := cfg.Discord
	timed := &doctor.Timed{}
	s, err := doctorSession(d, timed)
	if err != nil {
		return []doctor.Line{doctor.Fail("apiURL", err.Error())}
	}
	me, err := s.User("@me", discordgo.WithContext(ctx))
	if err != nil {
		return append([]doctor.Line{tokenLine(err, d.APIURL)}, timed.Clock("Discord")...)
	}
	lines := []doctor.Line{doctor.Pass("token", fmt.Sprintf("bot %s (%s)", me.Username, me.ID))}
	lines = append(lines, applicationLines(ctx, s, d)...)
	lines = append(lines, channelLines(ctx, s, d, me.ID)...)
	return append(lines, timed.Clock("Discord")...)
}

// doctorSession is a REST-only session through timed, with no retries:
// doctor reports what the service answered the first time.
func doctorSession(d *spec.DiscordConfig, timed *doctor.Timed) (*discordgo.Session, error) {
	s, err := discordgo.New("Bot " + d.BotToken.Reveal())
	if err != nil {
		return nil, fmt.Errorf("creating the session: %w", err)
	}
	s.MaxRestRetries = 0
	s.ShouldRetryOnRateLimit = false
	s.StateEnabled = false
	timed.Next = http.DefaultTransport
	if d.APIURL != "" {
		if timed.Next, err = rewrite.NewHost(d.APIURL, http.DefaultTransport); err != nil {
			return nil, fmt.Errorf("apiURL %q: %w", d.APIURL, err)
		}
	}
	s.Client = &http.Client{Timeout: doctor.RequestTimeout, Transport: timed}
	return s, nil
}

// tokenLine is the token check that failed with err.
func tokenLine(err error, apiURL string) doctor.Line {
	if restStatus(err) == http.StatusUnauthorized {
		return doctor.Fail("token", "Discord refused the bot token (401): reset it under Bot in the developer portal and put the new one where botToken points")
	}
	return doctor.Fail("token", fmt.Sprintf("could not ask Discord who the bot is: %v; check the network (and apiURL if set)", rewrite.DialledErr(err, apiURL)))
}
