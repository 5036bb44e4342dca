package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/chat/internal/rewrite"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// PartLimit is Discord's limit on a message's content, in code points.
const PartLimit = 2000

// flagSuppressEmbeds is Discord's SUPPRESS_EMBEDS message flag: no link previews.
const flagSuppressEmbeds = 1 << 2

// threadArchiveMinutes is how long an idle session thread stays in the
// channel's thread list (the longest Discord offers); a post unarchives it.
const threadArchiveMinutes = 10080

// maxThreadName is Discord's limit on a thread name, in code points.
const maxThreadName = 100

// Defaults of Options.
const (
	DefaultTimeout = 15 * time.Second
	// DefaultNonceWindow is how long after its first attempt a part is
	// resolved by posting it again with its nonce. Discord documents the
	// window only as "the past few minutes"; two minutes is the shortest
	// reading of "few" with a margin left for the clocks, and a part older
	// than this is found by content instead, which costs history reads but
	// never depends on the window.
	DefaultNonceWindow = 2 * time.Minute
	// DefaultLookupPages bounds a content lookup (100 messages a page).
	DefaultLookupPages = 50
)

// Options tunes a Poster; zero values take the defaults.
type Options struct {
	Timeout     time.Duration // one request, answer included
	NonceWindow time.Duration
	LookupPages int
	// Log takes what an operator should know that is no error (threads
	// archived without the lock); the zero Logger drops it.
	Log logr.Logger
}

// Poster is relay.Poster for one bot and parent channel.
type Poster struct {
	cfg       *spec.DiscordConfig
	opts      Options
	s         *discordgo.Session
	transport http.RoundTripper
	cdn       *http.Client // downloads attachments (Fetch)

	mu     sync.Mutex
	self   string // the bot's user ID, once known
	noLock bool   // Discord refused to lock a thread: archive only
}

var _ relay.Poster = (*Poster)(nil)

// NewPoster returns a Poster posting as cfg's bot under cfg.ParentChannelID.
func NewPoster(cfg *spec.DiscordConfig, opts Options) (*Poster, error) {
	if cfg == nil || cfg.ParentChannelID == "" {
		return nil, errors.New("discord poster: parentChannelId is empty")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.NonceWindow <= 0 {
		opts.NonceWindow = DefaultNonceWindow
	}
	if opts.LookupPages <= 0 {
		opts.LookupPages = DefaultLookupPages
	}
	s, err := discordgo.New("Bot " + cfg.BotToken.Reveal())
	if err != nil {
		return nil, fmt.Errorf("discord poster: creating the session: %w", err)
	}
	// Belt and braces: every request also passes these as options.
	s.MaxRestRetries = 0
	s.ShouldRetryOnRateLimit = false
	var transport http.RoundTripper = http.DefaultTransport.(*http.Transport).Clone()
	if cfg.APIURL != "" {
		if transport, err = rewrite.NewHost(cfg.APIURL, transport); err != nil {
			return nil, fmt.Errorf("discord poster: apiURL: %w", err)
		}
	}
	s.Client = &http.Client{Timeout: opts.Timeout, Transport: transport}
	p := &Poster{cfg: cfg, opts: opts, s: s, transport: transport}
	p.cdn = p.newCDNClient()
	return p, nil
}

// PartLimit implements relay.Poster.
func (p *Poster) PartLimit() int { return PartLimit }

// channelOf is where a part goes: its thread, or the parent for a root.
func (p *Poster) channelOf(thread string) string {
	if thread == "" {
		return p.cfg.ParentChannelID
	}
	return thread
}

// Bucket names, as Discord keys its per-route limits.
func bucketOf(method, channel, route string) string {
	return method + " /channels/" + channel + route
}

// CheckChannel implements relay.Poster.
func (p *Poster) CheckChannel(ctx context.Context) error {
	id := p.cfg.ParentChannelID
	body, err := p.do(ctx, http.MethodGet, discordgo.EndpointChannel(id), bucketOf(http.MethodGet, id, ""), nil)
	var re *relay.Error
	if errors.As(err, &re) && re.Kind == relay.Blocked && !errors.Is(err, errUnauthorized) {
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonChannelUnavailable, Code: re.Code,
			Err: fmt.Errorf("discord channel %s cannot be read by the bot: %w", id, re.Err)}
	}
	if err != nil {
		return err
	}
	var ch struct {
		Type int `json:"type"`
	}
	if err := json.Unmarshal(body, &ch); err != nil {
		return fmt.Errorf("discord channel %s: decoding the answer: %w", id, err)
	}
	if why := channelTypeProblem(discordgo.ChannelType(ch.Type)); why != "" {
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonChannelUnavailable,
			Err: fmt.Errorf("discord channel %s %s; parentChannelId must be a text channel the bot can start threads in", id, why)}
	}
	return nil
}

// channelTypeProblem says why a channel cannot hold the sessions' threads, or "".
func channelTypeProblem(t discordgo.ChannelType) string {
	switch t {
	case discordgo.ChannelTypeGuildText, discordgo.ChannelTypeGuildNews:
		return ""
	case discordgo.ChannelTypeGuildPublicThread, discordgo.ChannelTypeGuildPrivateThread, discordgo.ChannelTypeGuildNewsThread:
		return "is a thread, not a channel"
	}
	return fmt.Sprintf("is not a text channel (type %d)", t)
}

// allowedMentions is always {"parse": []}: agent text never pings anyone.
// Users are the ones an ask's part mentions by id (renderPart), if any.
type allowedMentions struct {
	Parse []string `json:"parse"`
	Users []string `json:"users,omitempty"`
}

var noMentions = allowedMentions{Parse: []string{}}

type postBody struct {
	Content         string          `json:"content"`
	Components      []component     `json:"components,omitempty"`
	AllowedMentions allowedMentions `json:"allowed_mentions"`
	Flags           int             `json:"flags"`
	Nonce           string          `json:"nonce"`
	EnforceNonce    bool            `json:"enforce_nonce"`
}

// Post implements relay.Poster.
func (p *Poster) Post(ctx context.Context, part relay.Part) (string, error) {
	if part.Upload != nil {
		return p.postFile(ctx, part)
	}
	ch := p.channelOf(part.Thread)
	r := renderPart(part)
	body, err := p.do(ctx, http.MethodPost, discordgo.EndpointChannelMessages(ch), bucketOf(http.MethodPost, ch, "/messages"), postBody{
		Content: r.content, Components: r.buttons, AllowedMentions: r.mentions, Flags: flagSuppressEmbeds,
		Nonce: p.nonce(part.Thread, part.Key), EnforceNonce: true,
	})
	if err != nil {
		return "", p.inThread(ctx, part.Thread, err)
	}
	return idOf(body, "message")
}

// idOf reads the id of a created object; an answer without one leaves the
// outcome unknown.
func idOf(body []byte, what string) (string, error) {
	var v struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.ID == "" {
		return "", &relay.Error{Kind: relay.Uncertain, Err: fmt.Errorf("discord's answer carries no %s id", what)}
	}
	return v.ID, nil
}

// StartThread implements relay.Poster.
func (p *Poster) StartThread(ctx context.Context, rootID, name string) (string, error) {
	ch := p.cfg.ParentChannelID
	body, err := p.do(ctx, http.MethodPost, discordgo.EndpointChannelMessageThread(ch, rootID),
		bucketOf(http.MethodPost, ch, "/messages/{id}/threads"), map[string]any{
			"name": threadName(name), "auto_archive_duration": threadArchiveMinutes,
		})
	var re *relay.Error
	switch {
	case errors.As(err, &re) && re.Code == fmt.Sprint(codeThreadExists):
		return rootID, nil // made by an earlier try: a message's thread shares its ID
	case errors.As(err, &re) && re.Code == fmt.Sprint(codeUnknownMessage):
		// The root was deleted (in a channel Discord knows, or the
		// answer would be Unknown Channel): the session's place is gone.
		return "", &relay.Error{Kind: relay.Gone, Code: re.Code,
			Err: fmt.Errorf("the session's root message %s was deleted: %w", rootID, re.Err)}
	case err != nil:
		return "", err
	}
	return idOf(body, "thread")
}

// threadName fits a session title to Discord's 1..100 code points.
func threadName(name string) string {
	r := []rune(name)
	if len(r) > maxThreadName {
		r = r[:maxThreadName]
	}
	if len(r) == 0 {
		return "session"
	}
	return string(r)
}

// Edit implements relay.Poster. It always removes the buttons: an ask is
// edited only to show its outcome.
func (p *Poster) Edit(ctx context.Context, e relay.EditRequest) error {
	ch := p.channelOf(e.Thread)
	_, err := p.do(ctx, http.MethodPatch, discordgo.EndpointChannelMessage(ch, e.RemoteID),
		bucketOf(http.MethodPatch, ch, "/messages/{id}"), map[string]any{
			"content": e.Text, "components": noComponents, "allowed_mentions": noMentions, "flags": flagSuppressEmbeds,
		})
	return p.inThread(ctx, e.Thread, err)
}

// Threads is nil or the thread lookup (relay.Poster): a thread that already exists for its root is success: StartThread is safe to repeat.
func (p *Poster) Threads() relay.ThreadLookup { return nil }

// PlacesApart implements relay.Poster: a root's lookup goes by its nonce
// and content, and a thread start is safe to repeat.
func (p *Poster) PlacesApart() bool { return true }

// Floors implements relay.Poster: none, the lookups go by nonce and content.
func (p *Poster) Floors() relay.Floors { return nil }
