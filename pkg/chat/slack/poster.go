package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// PartLimit is the longest part posted, in code points before escaping
// (DESIGN 5): within the 4,000 characters Slack advises for a message's
// text, and even escaped in full (at most 5 characters for one) far under
// the 40,000 it accepts.
const PartLimit = 3900

// MetadataEventType names the metadata every relay part carries; its
// payload is {"key": part key}.
const MetadataEventType = "reconciler_relay_part"

// Options tunes a Poster; zero values take defaults.
type Options struct {
	// Timeout bounds one Web API call (default 15 s). A post that times out
	// is Uncertain.
	Timeout time.Duration
	// PageSize is the number of messages a lookup asks for per page
	// (default 200; Slack caps it lower for some apps).
	PageSize int
	// ClockSkew is how far this machine's clock may be ahead of Slack's;
	// a lookup never reads messages older than a part's first attempt
	// minus it (default 1 h).
	ClockSkew time.Duration
	// PostInterval paces chat.postMessage to the channel at one call per
	// interval on average, PostBurst calls at once after a quiet spell
	// (defaults 1 s and 4: Slack takes about one message a second in a
	// channel, with short bursts). A negative PostInterval turns pacing
	// off; a 429 still holds back every call to its method.
	PostInterval time.Duration
	PostBurst    int
	// ShareWait bounds how long a file part's Post waits for the file's
	// share to show in files.info after completing it, as Slack shares
	// asynchronously (default 10 s); past it the part is uncertain, and
	// the relay's lookup finds the share later.
	ShareWait time.Duration
}

// Poster posts a daemon's sessions to one Slack channel.
type Poster struct {
	api     *slackapi.Client
	channel string
	token   string // only to keep it out of error text
	opts    Options
	routes  *routes
	// files uploads and downloads files, following no redirect; apiURL
	// is the parsed apiURL when one is set: its host is then the only
	// file host (fileHost).
	files  *http.Client
	apiURL *url.URL

	selfMu sync.Mutex
	self   string // the bot's user id, once auth.test told it
}

var _ relay.Poster = (*Poster)(nil)

// NewPoster returns a Poster for cfg's channel, with its bot token.
func NewPoster(cfg *spec.SlackConfig, opts Options) (*Poster, error) {
	switch {
	case cfg == nil:
		return nil, errors.New("slack poster: no slack configuration")
	case cfg.BotToken.IsZero():
		return nil, errors.New("slack poster: slack.botToken is empty")
	case cfg.ChannelID == "":
		return nil, errors.New("slack poster: slack.channelId is empty")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 15 * time.Second
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 200
	}
	if opts.ClockSkew <= 0 {
		opts.ClockSkew = time.Hour
	}
	if opts.PostInterval == 0 {
		opts.PostInterval = time.Second
	}
	if opts.PostBurst <= 0 {
		opts.PostBurst = 4
	}
	if opts.ShareWait <= 0 {
		opts.ShareWait = 10 * time.Second
	}
	// No OptionRetry: slack-go then sends every call exactly once.
	options := []slackapi.Option{slackapi.OptionHTTPClient(&http.Client{Timeout: opts.Timeout})}
	var api *url.URL
	if cfg.APIURL != "" {
		options = append(options, slackapi.OptionAPIURL(apiBase(cfg.APIURL)))
		u, err := url.Parse(apiBase(cfg.APIURL))
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("slack poster: slack.apiUrl %q is not a URL", cfg.APIURL)
		}
		api = u
	}
	return &Poster{
		api:     slackapi.New(cfg.BotToken.Reveal(), options...),
		channel: cfg.ChannelID,
		token:   cfg.BotToken.Reveal(),
		opts:    opts,
		routes:  newRoutes(opts.PostInterval, opts.PostBurst),
		files:   &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		apiURL:  api,
	}, nil
}

// PartLimit implements relay.Poster.
func (p *Poster) PartLimit() int { return PartLimit }

// CheckChannel implements relay.Poster: conversations.info, and the bot
// must be a member (Slack answers ok for a public channel the bot left)
// of a channel that is not archived.
func (p *Poster) CheckChannel(ctx context.Context) error {
	var ch *slackapi.Channel
	err := p.call(ctx, "conversations.info", func() (err error) {
		ch, err = p.api.GetConversationInfoContext(ctx, &slackapi.GetConversationInfoInput{ChannelID: p.channel})
		return err
	})
	if err != nil {
		e := p.fail("checking channel "+p.channel, err)
		if code, ok := slackCode(err); ok && channelCodes[code] {
			e.Kind, e.Reason = relay.Blocked, relay.ReasonChannelUnavailable
		}
		return e
	}
	switch {
	case ch.IsArchived:
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonChannelUnavailable, Code: "is_archived",
			Err: fmt.Errorf("channel %s is archived", p.channel)}
	case !ch.IsMember && !ch.IsIM && !ch.IsMpIM: // a DM carries no is_member
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonChannelUnavailable, Code: "not_in_channel",
			Err: fmt.Errorf("the bot is not a member of channel %s: invite it", p.channel)}
	}
	return nil
}

// literal are the options that make Slack show shown (text escaped, and
// any mention render wrote outside it) exactly as it is: parse=none and
// link_names=false sent explicitly on every post and edit, since
// chat.update's defaults are not chat.postMessage's, so that no name in
// the text is ever turned into a mention or a link.
func literal(shown string) []slackapi.MsgOption {
	return []slackapi.MsgOption{
		slackapi.MsgOptionText(shown, false),
		slackapi.MsgOptionParse(false),
		slackapi.MsgOptionLinkNames(false),
	}
}

// Post implements relay.Poster: one chat.postMessage; an ask's last part
// carries its buttons in blocks, besides the text (render). A file part
// is an upload (postFile).
func (p *Poster) Post(ctx context.Context, part relay.Part) (string, error) {
	if part.Upload != nil {
		return p.postFile(ctx, part)
	}
	c := render(part.Text, part.Choices, part.Ping)
	opts := append(literal(c.text),
		slackapi.MsgOptionDisableLinkUnfurl(),
		slackapi.MsgOptionDisableMediaUnfurl(),
		slackapi.MsgOptionMetadata(slackapi.SlackMetadata{
			EventType:    MetadataEventType,
			EventPayload: map[string]any{"key": part.Key},
		}),
	)
	if c.blocks != nil {
		opts = append(opts, slackapi.MsgOptionBlocks(c.blocks...))
	}
	if part.Thread != "" {
		opts = append(opts, slackapi.MsgOptionTS(part.Thread))
	}
	var ts string
	err := p.call(ctx, methodPostMessage, func() (err error) {
		_, ts, err = p.api.PostMessageContext(ctx, p.channel, opts...)
		return err
	})
	if err != nil {
		return "", p.inThread(ctx, part.Thread, p.fail("posting "+part.Key, err))
	}
	if ts == "" {
		// ok:true without a ts: it was accepted, but under what id is unknown.
		return "", &relay.Error{Kind: relay.Uncertain, Err: fmt.Errorf("posting %s: slack answered without a ts", part.Key)}
	}
	return ts, nil
}

// StartThread implements relay.Poster: a Slack thread is its root's ts.
func (p *Poster) StartThread(_ context.Context, rootID, _ string) (string, error) {
	if rootID == "" {
		return "", &relay.Error{Kind: relay.Refused, Err: errors.New("starting a thread: no root message ts")}
	}
	return rootID, nil
}

// Edit implements relay.Poster: one chat.update, with blocks=[] so that
// the message keeps no buttons (an ask is edited only to show its
// outcome), whatever Slack does with the blocks of an update that names
// none.
func (p *Poster) Edit(ctx context.Context, e relay.EditRequest) error {
	opts := append(literal(escape(e.Text)), slackapi.MsgOptionBlocks())
	err := p.call(ctx, "chat.update", func() error {
		_, _, _, err := p.api.UpdateMessageContext(ctx, p.channel, e.RemoteID, opts...)
		return err
	})
	if err != nil {
		return p.editGone(ctx, e.Thread, p.fail("editing "+e.RemoteID, err))
	}
	return nil
}

// Archive implements relay.Poster: a Slack thread has nothing to close.
func (p *Poster) Archive(context.Context, string) error { return nil }

// call makes one call to a Web API method once its route allows it; a
// 429 it meets holds back every later call to the method.
func (p *Poster) call(ctx context.Context, method string, do func() error) error {
	if err := p.routes.wait(ctx, method); err != nil {
		return err
	}
	err := do()
	if e := classify(err); e != nil && e.Kind == relay.RateLimited {
		p.routes.limited(method, e.RetryAfter)
	}
	return err
}

// fail classifies err with context, its text scrubbed of the token.
func (p *Poster) fail(what string, err error) *relay.Error {
	e := classify(err)
	e.Err = scrub(fmt.Errorf("slack %s: %w", what, err), p.token)
	return e
}

// apiBase is the Web API base slack-go joins method names onto (ending in
// "/api/") for an apiURL given with or without its "/api" part, for the
// poster and the Socket Mode transport alike: "http://host:port" and
// "http://host:port/api/" name the same API.
func apiBase(apiURL string) string {
	base := strings.TrimRight(apiURL, "/")
	if !strings.HasSuffix(base, "/api") {
		base += "/api"
	}
	return base + "/"
}

// Threads is nil or the thread lookup (relay.Poster): a thread is its root's replies: there is nothing to make.
func (p *Poster) Threads() relay.ThreadLookup { return nil }

// PlacesApart implements relay.Poster: a root's lookup goes by the key
// in its metadata, and a thread start is safe to repeat.
func (p *Poster) PlacesApart() bool { return true }

// Floors implements relay.Poster: none, the lookups go by metadata.
func (p *Poster) Floors() relay.Floors { return nil }
